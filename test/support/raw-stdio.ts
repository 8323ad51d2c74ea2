/**
 * The built server (`node dist/cli.js`) driven with raw bytes on stdin, for
 * tests of the transport itself: what the SDK client would never send. Every
 * stdout line is kept as written; replies are awaited by id, never by time.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { makeConfigTree } from "./config-tree.js";
import { makeFakeBin, type FakeBin } from "./fake-clis.js";
import { CLI_PATH } from "./run-cli.js";

export interface StdoutLine {
  readonly raw: Buffer;
  /** The parsed line, or undefined when it was not JSON. */
  readonly message: Record<string, unknown> | undefined;
}

export interface RawSession {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every line written to stdout so far, in order. */
  readonly lines: StdoutLine[];
  readonly stderr: () => string;
  send(bytes: string | Buffer): void;
  /** Resolves with the `count`-th reply carrying `id` (1 = the first); rejects if the server exits first. */
  reply(id: string | number, count?: number): Promise<Record<string, unknown>>;
  /** Sends `initialize` and `notifications/initialized`, as a client must before calling tools. */
  initialize(): Promise<void>;
  /** Closes stdin and resolves with the exit code. */
  close(): Promise<number | null>;
}

/** Starts the server with `env` (TORII_CONFIG_DIR etc.) on a PATH that ends with the test's own. */
export function startRawSession(env: Record<string, string>): RawSession {
  const child = spawn(process.execPath, [CLI_PATH], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", TORII_NO_GUI: "1", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: StdoutLine[] = [];
  const repliesById = new Map<string | number, Record<string, unknown>[]>();
  const waiters = new Set<() => void>();
  let pending = Buffer.alloc(0);
  let stderr = "";
  let exited = false;
  child.stdout.on("data", (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    let newline = pending.indexOf(0x0a);
    while (newline !== -1) {
      const raw = pending.subarray(0, newline);
      pending = pending.subarray(newline + 1);
      const message = parseLine(raw);
      lines.push({ raw, message });
      const id = message?.id;
      if ((typeof id === "string" || typeof id === "number") && message !== undefined && !("method" in message)) {
        repliesById.set(id, [...(repliesById.get(id) ?? []), message]);
      }
      newline = pending.indexOf(0x0a);
    }
    for (const wake of [...waiters]) wake();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exit = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      exited = true;
      for (const wake of [...waiters]) wake();
      resolve(code);
    });
  });
  // A server that dies mid-write must fail the test through its assertions, not through EPIPE.
  child.stdin.on("error", () => undefined);

  const session: RawSession = {
    child,
    lines,
    stderr: () => stderr,
    send(bytes) {
      child.stdin.write(bytes);
    },
    reply(id, count = 1) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = repliesById.get(id)?.[count - 1];
          if (found !== undefined) {
            waiters.delete(check);
            resolve(found);
          } else if (exited) {
            waiters.delete(check);
            reject(new Error(`the server exited before replying to id ${JSON.stringify(id)}; stderr:\n${stderr}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    async initialize() {
      const params = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } };
      session.send(`${JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params })}\n`);
      await session.reply("init");
      session.send(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    },
    close() {
      child.stdin.end();
      return exit;
    },
  };
  return session;
}

function parseLine(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(raw.toString("utf8")) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A `tools/call` request line (with its newline). */
export function toolCallLine(id: string | number, name: string, args: Record<string, unknown>): string {
  return `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })}\n`;
}

/**
 * A server over raw stdio with one provider, `sentinel`, that accepts `go` and runs
 * the fake CLI `must-not-run` (which leaves a marker when it runs: `bin.ran`).
 */
export function startSentinelSession(): { readonly raw: RawSession; readonly bin: FakeBin } {
  const bin = makeFakeBin();
  const root = makeConfigTree({
    "providers/sentinel/provider.yaml": 'version: "1"\nname: sentinel\ntool: sentinel\ncommand: must-not-run\n',
    "providers/sentinel/rules.yaml": 'version: "1"\naccept: [go]\n',
  });
  return { raw: startRawSession({ TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` }), bin };
}
