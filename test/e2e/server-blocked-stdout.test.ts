/**
 * A client that stops reading the server's stdout, through the real stdio
 * server. Before, the server stopped reading stdin while stdout was full: a
 * `notifications/cancelled` waited behind the back-pressure (the canceled call's
 * process ran on), and a client that then closed stdin left the server running
 * for ever (its end was never read). Now notifications are read and handed on
 * while requests wait, and the end of stdin shuts the server down: calls are
 * killed, their audit records written, and the server exits once stdout has
 * taken what was written or the drain period has passed (STDOUT_DRAIN_MS, 5 s;
 * TORII_STDOUT_DRAIN_MS shortens it here, since the test never reads: the exit
 * waits out the whole period).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, expect, onTestFinished, test } from "vitest";
import type { FakeBin } from "../support/fake-clis.js";
import { tempDirectory } from "../support/temp-dirs.js";
import { startUnreadServer, unreadServerBin, type UnreadServer } from "../support/unread-server.js";
import { isAlive, killQuietly, waitForFile, waitUntilGone } from "../unit/runtime/process-helpers.js";

const marks = tempDirectory("torii-blocked-");
/** How long the shut-down server waits for the unread stdout: the test only needs it to end. */
const DRAIN_MS = 200;
let bin: FakeBin;

beforeAll(() => {
  bin = unreadServerBin(marks);
});

/** A server whose stdout the test does not read. */
function startUnread(): UnreadServer {
  return startUnreadServer(bin, { TORII_STDOUT_DRAIN_MS: String(DRAIN_MS) });
}

const LOUD_CALLS = ["loud-1", "loud-2", "loud-3"];
const call = (id: string, name: string, args: readonly string[]): unknown => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: { args } },
});

/** Starts a sleeper call, then fills stdout: resolves with the sleeper's pid once a loud call waits for stdout. */
async function sleeperBehindFullStdout(session: ReturnType<typeof startUnread>, name: string): Promise<number> {
  session.send(call("sleeper", "sleeper", [name]));
  const pidFile = path.join(marks, name);
  await waitForFile(pidFile, 60_000);
  const pid = Number(readFileSync(pidFile, "utf8"));
  onTestFinished(() => killQuietly(pid));
  // The first loud results fill the pipe; a later call takes the slot and waits for stdout.
  for (const id of LOUD_CALLS) session.send(call(id, "loud", ["x"]));
  await expect.poll(() => session.stderr().includes("stdout is full (the client is not reading it)"), { timeout: 60_000 }).toBe(true);
  return pid;
}

test("a cancel sent while stdout is full stops its call's process at once; the call gets no response", async () => {
  const session = startUnread();
  const pid = await sleeperBehindFullStdout(session, "canceled");
  session.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sleeper", reason: "user" } });
  expect(await waitUntilGone(pid)).toBe(true);

  // The client reads again: the loud calls are answered, the canceled one is not.
  const ids: unknown[] = [];
  let pending = "";
  const both = new Promise<void>((resolve) => {
    session.child.stdout.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
        ids.push((JSON.parse(pending.slice(0, newline)) as { id?: unknown }).id);
        pending = pending.slice(newline + 1);
        if (LOUD_CALLS.every((id) => ids.includes(id))) resolve();
      }
    });
  });
  session.child.stdout.resume();
  await both;
  session.child.stdin.end();
  await new Promise((resolve) => session.child.once("exit", resolve));
  expect(ids).not.toContain("sleeper");
});

test("a client that closes stdin without reading stdout: the server kills the call, writes its records and exits", async () => {
  const session = startUnread();
  const pid = await sleeperBehindFullStdout(session, "abandoned");
  const exited = new Promise<number | null>((resolve) => session.child.once("exit", resolve));
  session.child.stdin.end();
  expect(await exited).toBe(0);
  expect(isAlive(pid)).toBe(false);
  expect(session.stderr()).toContain(`stdout was not read within ${DRAIN_MS} ms of the shutdown: the replies still unread are dropped`);
  const records = readFileSync(path.join(session.root, "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { event: string; call_id: string });
  // Every call that was launched (the sleeper's, killed by the shutdown, among them) has its end recorded.
  const launched = records.filter((record) => record.event === "invoke").map((record) => record.call_id);
  const ended = records.filter((record) => record.event === "ran").map((record) => record.call_id);
  expect(launched.length).toBeGreaterThanOrEqual(2);
  expect(ended.sort()).toEqual(launched.sort());
}, 120_000);
