/**
 * A client that does not read the server's stdout: stdin is paused while
 * stdout is full, and the calls already accepted wait before they run, so
 * only the calls already running add a result each to what waits in memory.
 * Before, every accepted call (up to max_concurrent_calls + 256 waiting) ran
 * and queued its result: 256 KiB of control bytes a call took the server past
 * 1.4 GB.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { beforeAll, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { CLI_PATH } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const CALLS = 12;
const runs = tempDirectory("torii-runs-");
/** Marks its run, then prints 64 KiB of control bytes (~0.85 MB once escaped twice in a result, a pipe holds 64 KiB): one fills the pipe. */
const LOUD = `const fs = require("node:fs");
fs.writeFileSync(require("node:path").join(${JSON.stringify(runs)}, process.argv[3]), "ran");
process.stdout.write("\\u0001".repeat(65536));`;

let bin: FakeBin;
let root: string;

beforeAll(() => {
  bin = makeFakeBin({ loud: LOUD });
  root = makeConfigTree({
    "settings.yaml": "max_concurrent_calls: 1\n",
    "providers/loud/provider.yaml": 'version: "1"\nname: loud\ntool: loud\ncommand: loud\n',
    "providers/loud/rules.yaml": 'version: "1"\naccept: [go]\n',
  });
});

const ran = (): number => readdirSync(runs).length;

test("calls accepted while the client does not read stdout wait to run until it reads; then every one runs and is answered", async () => {
  const child = spawn(process.execPath, [CLI_PATH], {
    env: { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, HOME: process.env.HOME ?? "/root", TORII_NO_GUI: "1", TORII_CONFIG_DIR: root },
    stdio: ["pipe", "pipe", "pipe"],
  });
  try {
    child.stdout.pause(); // the client reads nothing yet
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "unread", version: "1" } };
    const lines = [
      { jsonrpc: "2.0", id: "init", method: "initialize", params: initialize },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      ...Array.from({ length: CALLS }, (_, id) => ({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "loud", arguments: { args: ["go", `run-${id}`] } },
      })),
    ];
    child.stdin.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));

    // Either the server says calls wait for stdout, or (the old behaviour) every call has run unread.
    await expect.poll(() => stderr.includes("stdout is full (the client is not reading it)") || ran() === CALLS, { timeout: 60_000 }).toBe(true);
    expect(ran()).toBeLessThanOrEqual(2); // the call that filled the pipe, and at most the one that took its slot meanwhile

    // The client reads: every call runs and gets its answer.
    const answered = new Set<unknown>();
    let pending = "";
    const all = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8");
        for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
          const message = JSON.parse(pending.slice(0, newline)) as { id?: unknown; result?: { isError?: boolean } };
          pending = pending.slice(newline + 1);
          if (typeof message.id === "number" && message.result?.isError !== true) answered.add(message.id);
          if (answered.size === CALLS) resolve();
        }
      });
    });
    child.stdout.resume();
    await all;
    expect(ran()).toBe(CALLS);
  } finally {
    child.stdout.resume(); // while stdout is full the server does not read stdin, so it would not see its end
    child.stdin.end();
    await new Promise((resolve) => child.once("exit", resolve));
  }
});
