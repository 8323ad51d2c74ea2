/**
 * Two ways to run the operator CLI in tests.
 *
 * `runCli` runs `runOperatorCommand` — the function the `torii` binary calls —
 * inside the test process, with the environment, stdout and stderr of the run
 * swapped in for its duration: the same code path as the binary minus the
 * Node start-up, so most assertions cost milliseconds instead of a process.
 * Runs are serialised, since process.env and the standard streams are global.
 *
 * `runCliProcess` runs the built binary as a real process (argv only, no
 * shell): each command keeps a few of those, for what only a process shows
 * (the bin entry, exit codes, stdout purity, lazy loading).
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runOperatorCommand } from "../../src/commands/program.js";
import { runDirectActivate } from "../../src/commands/target/direct-activate.js";
import { testRunsDirectory } from "./temp-dirs.js";

/** dist/cli.js, what client registrations run (`node <package>/dist/cli.js`); it runs the bin, BIN_PATH. */
export const CLI_PATH = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
/** The package's `bin` (dist/cli.cjs), what npm links as `torii` and an operator's shell runs. */
export const BIN_PATH = fileURLToPath(
  new URL(
    `../../${(JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { bin: { torii: string } }).bin.torii}`,
    import.meta.url,
  ),
);

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

export interface CliResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment a CLI run sees: the caller's variables over a minimal PATH and HOME, and the run's TMPDIR (test/global-setup.ts). */
function runEnvironment(env: Record<string, string>): Record<string, string> {
  const tmp = process.env.TMPDIR === undefined ? {} : { TMPDIR: process.env.TMPDIR };
  return { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/nonexistent", ...tmp, ...env };
}

const CHECKOUT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The folder a CLI run starts in: the test's own (a project folder it changed
 * to), or, when the test stayed in the checkout, the run's directory
 * (an empty folder beside test/global-setup.ts's runs), as an operator runs
 * `torii` from a folder of their own. Not the checkout: Torii refuses to register code that lies in the
 * folder it is run from (the agent's, src/agents/launch-trust.ts), and the
 * checkout holds dist/.
 */
export function cliWorkingDirectory(): string {
  const relative = path.relative(CHECKOUT, process.cwd());
  const inCheckout = relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
  if (!inCheckout) return process.cwd();
  // Beside the runs' directory, not above it: the fake CLIs the tests put on PATH must not lie below it.
  const neutral = path.join(path.dirname(testRunsDirectory()), "torii-test-cwd");
  mkdirSync(neutral, { recursive: true, mode: 0o700 });
  return neutral;
}

/** Runs the built `torii` binary as a real process. */
export function runCliProcess(args: readonly string[], env: Record<string, string> = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI_PATH, ...args], {
    encoding: "utf8",
    cwd: cliWorkingDirectory(),
    env: runEnvironment(env),
    shell: false,
    // A hang guard only (spawnSync blocks the test, so vitest could not time it out): far above a loaded machine's start-up.
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs the built `torii` binary as a real process without blocking the test: independent runs
 * started together finish together instead of one after another (on a loaded machine, each
 * waits its turn for a core).
 */
export function runCliProcessAsync(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { encoding: "utf8", cwd: cliWorkingDirectory(), env: runEnvironment(env), shell: false },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ status: code, stdout, stderr });
      },
    );
  });
}

let queue: Promise<unknown> = Promise.resolve();

/** What an in-process run reads and lets a test watch (prompts). */
export interface CliIo {
  /** Stands in for process.stdin during the run (set `isTTY` on it to look like a terminal). */
  readonly stdin?: NodeJS.ReadableStream;
  /** Sees each stderr write as it happens (to answer prompts). */
  readonly onStderr?: (text: string) => void;
}

/** Captures everything written to `stream` while `run` is pending. */
function capture(stream: NodeJS.WriteStream, sink: string[], onWrite?: (text: string) => void): () => void {
  const original = stream.write.bind(stream);
  stream.write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    sink.push(text);
    onWrite?.(text);
    const callback = rest.find((item): item is () => void => typeof item === "function");
    callback?.();
    return true;
  };
  return () => {
    stream.write = original;
  };
}

/**
 * Replaces the variables of process.env in place (not the object: Node passes
 * in-place changes on to the C environment, which os.homedir() reads) and
 * returns a function that puts the previous ones back.
 */
function swapEnvironment(next: Record<string, string>): () => void {
  const saved = { ...process.env };
  const assign = (values: NodeJS.ProcessEnv): void => {
    for (const key of Object.keys(process.env)) Reflect.deleteProperty(process.env, key);
    Object.assign(process.env, values);
  };
  assign(next);
  return () => {
    assign(saved);
  };
}

/** Replaces process.stdin (a lazy getter on process) for the run; returns the restorer. */
function swapStdin(stdin: NodeJS.ReadableStream | undefined): () => void {
  if (stdin === undefined) return () => undefined;
  const descriptor = Object.getOwnPropertyDescriptor(process, "stdin");
  Object.defineProperty(process, "stdin", { value: stdin, configurable: true, enumerable: true });
  return () => {
    if (descriptor !== undefined) Object.defineProperty(process, "stdin", descriptor);
  };
}

async function runInProcess(command: () => Promise<number>, env: Record<string, string>, io: CliIo): Promise<CliResult> {
  const savedExitCode = process.exitCode;
  const stdout: string[] = [];
  const stderr: string[] = [];
  const restoreEnv = swapEnvironment(runEnvironment(env));
  const savedCwd = process.cwd();
  process.chdir(cliWorkingDirectory());
  const restoreStdin = swapStdin(io.stdin);
  const restoreStdout = capture(process.stdout, stdout);
  const restoreStderr = capture(process.stderr, stderr, io.onStderr);
  try {
    const status = await command();
    return { status, stdout: stdout.join(""), stderr: stderr.join("") };
  } finally {
    restoreStderr();
    restoreStdout();
    restoreStdin();
    restoreEnv();
    process.chdir(savedCwd);
    process.exitCode = savedExitCode;
  }
}

/** Runs one operator command in this process, as the binary would, one run at a time. */
export function runCli(args: readonly string[], env: Record<string, string> = {}, io: CliIo = {}): Promise<CliResult> {
  return enqueue(() => runInProcess(() => runOperatorCommand(VERSION, args), env, io));
}

/**
 * Runs `target activate` in this process through the binary's direct path
 * (src/commands/target/direct-activate.ts, no commander); status null when the
 * direct path declined `args` (the binary would then run commander).
 */
export function runDirectActivateCli(args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  let declined = false;
  return enqueue(async () => {
    const result = await runInProcess(
      async () => {
        const status = await runDirectActivate(args);
        declined = status === undefined;
        return status ?? 0;
      },
      env,
      {},
    );
    return declined ? { ...result, status: null } : result;
  });
}

function enqueue(run: () => Promise<CliResult>): Promise<CliResult> {
  const next = queue.then(run);
  queue = next.catch(() => undefined);
  return next;
}

/** `runCli` with the current directory in `folder` for the run (a project folder the command runs from). */
export async function runCliIn(folder: string, args: readonly string[], env: Record<string, string>): ReturnType<typeof runCli> {
  const previous = process.cwd();
  process.chdir(folder);
  try {
    return await runCli([...args], env);
  } finally {
    process.chdir(previous);
  }
}
