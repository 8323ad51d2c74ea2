/**
 * A command in a real pseudo-terminal, for tests of interactive commands: the
 * program runs under Python's pty.spawn (argv, no shell), and the test answers
 * each prompt only after it has appeared (no fixed sleeps). The output is kept
 * twice: with the terminal escapes stripped (to match text) and raw (to check
 * the escapes themselves, e.g. colour under NO_COLOR).
 */
import { spawn } from "node:child_process";
import { CLI_PATH, cliWorkingDirectory } from "./run-cli.js";
import { testInterpreter } from "./test-python.js";

const ESCAPE = String.fromCharCode(27);
/** Every CSI escape sequence (colour, cursor movement, erasing). */
export const ANSI_ESCAPE = new RegExp(`${ESCAPE}\\[[0-9;?]*[A-Za-z]`, "gu");
/** Select Graphic Rendition sequences only: colour and bold, not cursor movement. */
export const ANSI_COLOUR = new RegExp(`${ESCAPE}\\[[0-9;]*m`, "u");
/** The arrow-down key. */
export const DOWN = `${ESCAPE}[B`;

export interface PtySession {
  /** Everything printed so far, escapes stripped. */
  output(): string;
  /** Everything printed so far, as the terminal received it. */
  raw(): string;
  readonly exited: Promise<number | null>;
  /** Waits for `text` to appear after the last match (60 s of silence fails). */
  expect(text: string): Promise<void>;
  /** Types `keys`. */
  send(keys: string): void;
}

let python: string | undefined;

/** The real python3 (not a version manager's shim, which needs the full PATH the command under test may not have). */
function realPython(): string {
  if (python !== undefined) return python;
  // The global setup resolved the tests' python to an interpreter: no shim, no spawn here.
  const found = testInterpreter();
  if (found === undefined) throw new Error("python3 runs the pseudo-terminal and did not start");
  python = found;
  return python;
}

/**
 * pty.spawn with a 50x250 terminal, sized in the child before the program starts: a pseudo-terminal
 * starts at 0x0, which prompts read as 80 columns and wrap a long path across lines.
 */
const PTY_SPAWN = `import fcntl, os, pty, struct, sys, termios
exec_program = os.execlp
def sized_exec(*args):
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
    exec_program(*args)
os.execlp = sized_exec
sys.exit(pty.spawn(sys.argv[1:]) >> 8)`;

/** Runs `argv` (program first) in a pseudo-terminal with a minimal environment plus `env` (and the run's TMPDIR), in `cwd`. */
export function ptyCommand(argv: readonly string[], env: Record<string, string>, cwd?: string): PtySession {
  const tmp = process.env.TMPDIR === undefined ? {} : { TMPDIR: process.env.TMPDIR };
  const child = spawn(realPython(), ["-c", PTY_SPAWN, ...argv], {
    env: { PATH: process.env.PATH ?? "", HOME: env.HOME ?? "/nonexistent", TERM: "xterm", ...tmp, ...env },
    stdio: ["pipe", "pipe", "pipe"],
    ...(cwd === undefined ? {} : { cwd }),
  });
  let raw = "";
  let output = "";
  let consumed = 0;
  let waiter: (() => void) | undefined;
  const onData = (chunk: Buffer): void => {
    const text = chunk.toString("utf8");
    raw += text;
    output += text.replace(ANSI_ESCAPE, "");
    waiter?.();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (status) => {
      resolve(status);
      waiter?.();
    }),
  );
  return {
    output: () => output,
    raw: () => raw,
    exited,
    async expect(text: string): Promise<void> {
      for (;;) {
        const at = output.indexOf(text, consumed);
        if (at !== -1) {
          consumed = at + text.length;
          return;
        }
        if (child.exitCode !== null) throw new Error(`exited before ${JSON.stringify(text)} appeared:\n${output}`);
        const arrived = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => {
            resolve(false);
          }, 60_000);
          waiter = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        if (!arrived) throw new Error(`no ${JSON.stringify(text)} after 60 s of silence; output so far:\n${output.slice(-1500)}`);
      }
    },
    send(keys: string): void {
      child.stdin.write(keys);
    },
  };
}

/** The built `torii` with `args` in a pseudo-terminal. */
export function ptySession(args: readonly string[], env: Record<string, string>): PtySession {
  return ptyCommand([process.execPath, CLI_PATH, ...args], env, cliWorkingDirectory());
}
