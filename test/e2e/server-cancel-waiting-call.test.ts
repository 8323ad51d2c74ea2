/**
 * A call accepted while the client reads stdout, that then waits for stdout to drain before it runs
 * (whenWritable, call-path.ts), and a cancel for it sent while the client does not read: when stdout drains,
 * the server reads what the client sent before the waiting call goes on, so the call ends there and never
 * enters the pipeline (no decision, no environment, no process). Stdin is a real pipe: the cancel waits past
 * the hold bound, unread, until the drain. Fails when the call path does not wait for stdout, and when the drain
 * does not read what the client sent before the held lines (the cancel would come a release batch later), and when
 * it resolves whenWritable before that read: the SDK aborts the call on a microtask the read queues, which must come
 * before the waiting call's continuation (the server's own abort, oncancel, is only for the ids 0 and "", a turn later).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { startRawSession, toolCallLine, type RawSession } from "../support/raw-stdio.js";
import { tempDirectory } from "../support/temp-dirs.js";

const fifos = tempDirectory("torii-waiting-");
const gate = path.join(fifos, "gate");
/** Holds the one call slot until the test writes to the FIFO `gate`. */
const GATED = `require("node:fs").readFileSync(${JSON.stringify(gate)});`;

let bin: FakeBin;
let root: string;
let raw: RawSession | undefined;

beforeAll(() => {
  execFileSync("mkfifo", [gate]);
  bin = makeFakeBin({ gated: GATED });
  root = makeConfigTree({
    "settings.yaml": "max_concurrent_calls: 1\n",
    "providers/gated/provider.yaml": 'version: "1"\nname: gated\ntool: gated\ncommand: gated\n',
    "providers/gated/rules.yaml": 'version: "1"\naccept: [hold]\n',
    "providers/victim/provider.yaml": 'version: "1"\nname: victim\ntool: victim\ncommand: must-not-run\n',
    "providers/victim/rules.yaml": 'version: "1"\naccept: [go]\n',
  });
});

afterEach(async () => {
  await raw?.close();
  raw = undefined;
});

/** Resolves once the server's stderr holds `text`. */
function untilStderr(session: RawSession, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (!session.stderr().includes(text)) return;
      session.child.stderr.off("data", check);
      resolve();
    };
    session.child.stderr.on("data", check);
    check();
  });
}

const ping = (id: string): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;

// 0 and "": the SDK ignores a cancel for a falsy id; the server's own abort (oncancel) stops the call, answered with its canceled result.
test.each(["victim", 0])("a call (id %j) waiting for stdout to drain, canceled while the client did not read, never enters the pipeline", async (victim) => {
  const session = startRawSession({ TORII_CONFIG_DIR: root, PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
  raw = session;
  await session.initialize();
  // The gated call takes the one slot; the victim, accepted while stdout is writable, waits for the slot.
  session.send(toolCallLine("gated", "gated", { args: ["hold"] }));
  session.send(toolCallLine(victim, "victim", { args: ["go"] }));
  session.send(ping("accepted"));
  await session.reply("accepted");

  session.child.stdout.pause();
  // 2 MiB of answers fill stdout; past MAX_HELD_LINES held requests the server stops reading stdin and says so.
  const filler = Array.from({ length: 64 }, (_, n) => `f${n}-${"x".repeat(32_000)}`);
  session.send(filler.map(ping).join(""));
  const paused = untilStderr(session, "stdin is not read until the client reads stdout");
  session.send(Array.from({ length: 1100 }, (_, n) => ping(`p${n}`)).join(""));
  await paused;

  // The gated call ends: the victim takes the slot and waits for stdout to drain before it runs.
  const waiting = untilStderr(session, "calls wait to run until it reads");
  // Asynchronous: opening the FIFO waits for the gated process to open it too, and must not block this thread.
  await writeFile(gate, "go");
  await waiting;
  // Unread until stdout drains (stdin is paused); then read before the victim's wait ends.
  session.send(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: victim, reason: "test" } })}\n`);
  expect(session.child.stdin.writableLength).toBe(0);

  session.child.stdout.resume();
  await session.reply("gated");
  await session.reply("p1099");
  // The canceled call gets no response; its audit trail would hold a decision had it entered the pipeline.
  const last = session.lines.findIndex((line) => line.message?.id === "p1099");
  const answers = session.lines.slice(0, last + 1).filter((line) => line.message?.id === victim);
  // The SDK saw no cancel for 0, so it answers the call, which ended before it ran.
  if (victim === 0)
    expect(answers.map((line) => line.message)).toEqual([{ jsonrpc: "2.0", id: 0, error: { code: -32603, message: "canceled by the client" } }]);
  else expect(answers).toEqual([]);
  expect(await session.close()).toBe(0);
  raw = undefined;
  const records = readFileSync(path.join(root, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { scope?: string; event?: string });
  expect(records.filter((record) => record.scope === "gated").map((record) => record.event)).toContain("allowed-by-rules");
  expect(records.filter((record) => record.scope === "victim")).toEqual([]);
  expect(bin.ran("must-not-run")).toBe(false);
});
