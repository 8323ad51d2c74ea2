/**
 * A real server whose stdout the test never reads (test/e2e/server-blocked-stdout, server-stalled-stdout): one call
 * slot for a `sleeper` that runs until killed, one for `loud` calls whose single result fills a pipe.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { onTestFinished } from "vitest";
import { makeConfigTree } from "./config-tree.js";
import { makeFakeBin, type FakeBin } from "./fake-clis.js";
import { CLI_PATH } from "./run-cli.js";

/** `loud` and `sleeper`; the sleeper writes its pid to the file of `marks` its argument names. */
export function unreadServerBin(marks: string): FakeBin {
  return makeFakeBin({
    // 64 KiB of control bytes (~0.85 MB once escaped twice in a result, a pipe holds 64 KiB): one result fills the pipe.
    loud: `process.stdout.write("\\u0001".repeat(65536));`,
    // Writes its pid to the file its argument names (whole: through a rename, so the file never appears empty), then runs until killed.
    sleeper: `const fs = require("node:fs"); const file = require("node:path").join(${JSON.stringify(marks)}, process.argv[2]);
fs.writeFileSync(file + ".tmp", String(process.pid)); fs.renameSync(file + ".tmp", file); setInterval(() => {}, 1000);`,
  });
}

export interface UnreadServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly root: string;
  readonly stderr: () => string;
  /** Writes `text` to the server's stdin as it is. */
  readonly write: (text: string) => void;
  /** Writes `message` as one JSON line. */
  readonly send: (message: unknown) => void;
}

/** Starts the built server over `bin` with `env` added, initialised, its stdout paused for good; killed after the test. */
export function startUnreadServer(bin: FakeBin, env: Readonly<Record<string, string>>): UnreadServer {
  const root = makeConfigTree({
    "settings.yaml": "max_concurrent_calls: 2\n",
    "providers/loud/provider.yaml": 'version: "1"\nname: loud\ntool: loud\ncommand: loud\n',
    "providers/loud/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    "providers/sleeper/provider.yaml": 'version: "1"\nname: sleeper\ntool: sleeper\ncommand: sleeper\n',
    "providers/sleeper/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
  });
  const child = spawn(process.execPath, [CLI_PATH], {
    env: { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, HOME: process.env.HOME ?? "/root", TORII_NO_GUI: "1", TORII_CONFIG_DIR: root, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  child.stdout.pause();
  child.stdin.on("error", () => undefined);
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const write = (text: string): void => {
    child.stdin.write(text);
  };
  const send = (message: unknown): void => write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: "2.0",
    id: "init",
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "unread", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { child, root, stderr: () => stderr, write, send };
}
