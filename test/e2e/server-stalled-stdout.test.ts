/**
 * A client that floods past the hold bound and never reads stdout, through the
 * real stdio server and a real pipe the test never reads. Past the bound the
 * server stops reading stdin (./server-blocked-stdout.test.ts covers the client
 * that closes stdin before it): its end can then no longer be seen, and the
 * server waited for ever, a call's process running on, whether the client had
 * closed stdin or kept it open. Now a stdout that stays full, taking nothing,
 * for STDOUT_STALL_MS ends the server: calls killed, the stall recorded in the
 * audit (`client-stalled`), exit. TORII_STDOUT_STALL_MS shortens the period; it
 * is long enough for the test to reach the hold bound first (the test checks it
 * did), and the test waits for the exit, never for a time. A client that
 * closes its end of stdout (EPIPE) with stdin open ends the server at once.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, expect, onTestFinished, test } from "vitest";
import { MAX_HELD_LINES } from "../../src/mcp/stdio/transport.js";
import type { FakeBin } from "../support/fake-clis.js";
import { tempDirectory } from "../support/temp-dirs.js";
import { startUnreadServer, unreadServerBin, type UnreadServer } from "../support/unread-server.js";
import { isAlive, killQuietly, waitForFile } from "../unit/runtime/process-helpers.js";

const marks = tempDirectory("torii-stalled-");
const STALL_MS = 4_000;
let bin: FakeBin;

beforeAll(() => {
  bin = unreadServerBin(marks);
});

/** A server whose stdout the test never reads, giving up on it after STALL_MS. */
function startUnread(): UnreadServer {
  return startUnreadServer(bin, { TORII_STDOUT_STALL_MS: String(STALL_MS), TORII_STDOUT_DRAIN_MS: "200" });
}

const callLine = (id: string, name: string, args: readonly string[]): string =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { args } } })}\n`;

/**
 * A running sleeper call, a full stdout (a loud call waits for room), then more requests than the hold bound keeps:
 * resolves with the sleeper's pid once the server stopped reading stdin.
 */
async function pastTheHoldBound(session: UnreadServer, name: string): Promise<number> {
  session.write(callLine("sleeper", "sleeper", [name]));
  const pidFile = path.join(marks, name);
  await waitForFile(pidFile, 60_000);
  const pid = Number(readFileSync(pidFile, "utf8"));
  onTestFinished(() => killQuietly(pid));
  session.write(["loud-1", "loud-2", "loud-3"].map((id) => callLine(id, "loud", ["x"])).join(""));
  await expect.poll(() => session.stderr().includes("stdout is full (the client is not reading it)"), { timeout: 60_000 }).toBe(true);
  const pings = Array.from({ length: MAX_HELD_LINES + 64 }, (_, index) => `${JSON.stringify({ jsonrpc: "2.0", id: `ping-${index}`, method: "ping" })}\n`);
  session.write(pings.join(""));
  await expect.poll(() => session.stderr().includes("stdin is not read until the client reads stdout"), { timeout: 60_000 }).toBe(true);
  return pid;
}

/** The cross-process locks (`<file>.lock`: the audit log's, a scope's, a lease's) still under the configuration root. */
const locksLeft = (root: string): string[] => readdirSync(root, { recursive: true, encoding: "utf8" }).filter((entry) => entry.endsWith(".lock"));

/** The server's exit, then what it recorded: the stall record, and each launched call's end; no lock is left behind. */
async function expectGaveUp(session: UnreadServer, exited: Promise<number | null>, pid: number): Promise<void> {
  expect(await exited).toBe(0);
  expect(isAlive(pid)).toBe(false);
  // It gave up on the stall (stdin's end, unread behind the bound, was never seen).
  expect(session.stderr()).toContain(`shutting down (stdout took nothing for ${STALL_MS} ms while replies waited`);
  const records = readFileSync(path.join(session.root, "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { event: string; call_id: string; scope: string; detail?: string });
  const stalled = records.filter((record) => record.event === "client-stalled");
  expect(stalled).toHaveLength(1);
  expect(stalled[0]?.scope).toBe("server");
  const launched = records.filter((record) => record.event === "invoke").map((record) => record.call_id);
  const ended = records.filter((record) => record.event === "ran").map((record) => record.call_id);
  expect(launched.length).toBeGreaterThanOrEqual(2);
  expect(ended.sort()).toEqual(launched.sort());
  expect(locksLeft(session.root)).toEqual([]);
}

test("a client that floods past the hold bound, closes stdin and never reads: the server kills the call, records the stall and exits", async () => {
  const session = startUnread();
  const pid = await pastTheHoldBound(session, "closed");
  const exited = new Promise<number | null>((resolve) => session.child.once("exit", resolve));
  session.child.stdin.end();
  await expectGaveUp(session, exited, pid);
}, 120_000);

test("a client that floods past the hold bound and keeps stdin open, never reading: the server gives up the same way", async () => {
  const session = startUnread();
  const pid = await pastTheHoldBound(session, "open");
  const exited = new Promise<number | null>((resolve) => session.child.once("exit", resolve));
  await expectGaveUp(session, exited, pid);
  expect(session.child.stdin.writableEnded).toBe(false);
}, 120_000);

test("a client that never reads stdout but floods notifications (never held, so no bound pauses stdin): the server gives up all the same", async () => {
  const session = startUnread();
  session.write(callLine("sleeper", "sleeper", ["chatty"]));
  const pidFile = path.join(marks, "chatty");
  await waitForFile(pidFile, 60_000);
  const pid = Number(readFileSync(pidFile, "utf8"));
  onTestFinished(() => killQuietly(pid));
  session.write(["loud-1", "loud-2", "loud-3"].map((id) => callLine(id, "loud", ["x"])).join(""));
  await expect.poll(() => session.stderr().includes("stdout is full (the client is not reading it)"), { timeout: 60_000 }).toBe(true);
  // Stdin stays busy until the server exits: progress is what stdout takes, not what stdin brings. A line every
  // 20 ms is 200 arrivals within the stall period, each of which would restart a watch that counted stdin.
  const notification = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;
  const flood = setInterval(() => {
    session.write(notification);
  }, 20);
  const exited = new Promise<number | null>((resolve) => session.child.once("exit", resolve));
  onTestFinished(() => {
    clearInterval(flood);
  });
  await expectGaveUp(session, exited, pid);
  clearInterval(flood);
}, 120_000);

test("a client that closes its end of stdout and keeps stdin open: the server kills the call and exits (no reply can reach it)", async () => {
  const session = startUnread();
  session.write(callLine("sleeper", "sleeper", ["broken"]));
  const pidFile = path.join(marks, "broken");
  await waitForFile(pidFile, 60_000);
  const pid = Number(readFileSync(pidFile, "utf8"));
  onTestFinished(() => killQuietly(pid));
  const exited = new Promise<number | null>((resolve) => session.child.once("exit", resolve));
  // The client's read end of stdout closes; its next reply breaks the pipe (EPIPE). Stdin stays open.
  session.child.stdout.destroy();
  session.write(`${JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" })}\n`);
  expect(await exited).toBe(0);
  expect(isAlive(pid)).toBe(false);
  expect(session.child.stdin.writableEnded).toBe(false);
  const records = readFileSync(path.join(session.root, "audit.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { event: string; call_id: string });
  const launched = records.filter((record) => record.event === "invoke").map((record) => record.call_id);
  expect(launched).toHaveLength(1);
  expect(records.filter((record) => record.event === "ran").map((record) => record.call_id)).toEqual(launched);
  expect(locksLeft(session.root)).toEqual([]);
}, 120_000);
