/**
 * The hold's bounds are kept line by line, whatever the chunks stdin is read in: a read of a pipe or socket takes up
 * to 64 KiB, some thousand short lines, and a chunk handled whole went past the bound (or, at the drain, past the
 * ceiling of what is read before the held lines are handed on) by all the lines after the one that reached it.
 * Stdin here is a real socket a child process writes to, one write per chunk, as a client does.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Socket } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MAX_HELD_LINES, RELEASE_BATCH } from "../../../src/mcp/stdio/transport.js";
import { FILL, heldStdout, ping, startedOn, type Started } from "../../support/stdio-transport.js";

/** Writes each chunk the test sends it (one JSON string a line) to stdout in one write, then says so on stderr. */
const WRITER = `let pending = "";
process.stdin.on("data", (data) => {
  pending += data;
  for (let newline = pending.indexOf("\\n"); newline !== -1; newline = pending.indexOf("\\n")) {
    require("node:fs").writeSync(1, JSON.parse(pending.slice(0, newline)));
    pending = pending.slice(newline + 1);
    process.stderr.write("written\\n");
  }
});`;

interface Writer {
  readonly stdout: Socket;
  /** Resolves once the child wrote `chunk` (in one write) to the socket the transport reads. */
  write(chunk: string): Promise<void>;
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

function startWriter(): Writer {
  const child = spawn(process.execPath, ["-e", WRITER], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  const acks: (() => void)[] = [];
  let acked = "";
  child.stderr.on("data", (data: Buffer) => {
    acked += data.toString("utf8");
    for (let newline = acked.indexOf("\n"); newline !== -1; newline = acked.indexOf("\n")) {
      acked = acked.slice(newline + 1);
      acks.shift()?.();
    }
  });
  return {
    stdout: child.stdout as Socket,
    write: (chunk) =>
      new Promise<void>((resolve) => {
        acks.push(resolve);
        child.stdin.write(`${JSON.stringify(chunk)}\n`);
      }),
  };
}

const notification = (method: string): string => `${JSON.stringify({ jsonrpc: "2.0", method })}\n`;
const pings = (from: number, count: number): string => Array.from({ length: count }, (_, index) => ping(from + index)).join("");

/** Resolves once `started` delivered a message that `matches`; every message is still collected. */
function deliveredWhere(started: Started<Socket>, matches: (message: JSONRPCMessage) => boolean, record: (message: JSONRPCMessage) => void): Promise<void> {
  return new Promise((resolve) => {
    started.transport.onmessage = (message) => {
      started.messages.push(message);
      record(message);
      if (matches(message)) resolve();
    };
  });
}

const isMethod = (method: string) => (message: JSONRPCMessage) => "method" in message && !("id" in message) && message.method === method;
const hasId = (id: number | string) => (message: JSONRPCMessage) => "id" in message && message.id === id;

/** A transport reading a child's writes, whose stdout is full once the child's first chunk (FILL) is answered. */
async function fullTransport(): Promise<{ writer: Writer; started: Started<Socket>; out: ReturnType<typeof heldStdout>; logs: string[] }> {
  const writer = startWriter();
  const out = heldStdout();
  const logs: string[] = [];
  // The test reads the socket's descriptor from Node's internals, as the server reads process.stdin's `fd`.
  const fd = (writer.stdout as unknown as { _handle: { fd: number } })._handle.fd;
  const started = await startedOn(out.stdout, { stdin: writer.stdout, stdinFd: fd, log: (line) => logs.push(line) });
  const answered = new Promise<void>((resolve) => {
    const check = (): void => {
      if (out.written.length === 0) return;
      writer.stdout.off("data", check);
      resolve();
    };
    writer.stdout.on("data", check);
  });
  await writer.write(FILL);
  await answered;
  return { writer, started, out, logs };
}

describe("BoundedStdioTransport reading a real socket", () => {
  test("while stdout can take more, a chunk's requests are handed on a batch per turn, so their answers fill stdout before the rest is read", async () => {
    const writer = startWriter();
    const out = heldStdout();
    const started = await startedOn(out.stdout, { stdin: writer.stdout });
    let answered = 0;
    const read = deliveredWhere(started, isMethod("notifications/read"), (message) => {
      // As the SDK does: a request's answer is written on a later microtask, not while the chunk is read.
      const id = "id" in message ? message.id : undefined;
      if (id !== undefined)
        queueMicrotask(() => {
          answered += 1;
          void started.transport.send({ jsonrpc: "2.0", id, result: {} });
        });
    });
    // One write: 200 requests (their answers would take 200 times the 64 bytes this stdout takes), then a notification.
    await writer.write(pings(0, 200) + notification("notifications/read"));
    await read;
    // The first turn's batch was handed on and answered; stdout was then full, so the rest of the chunk was held.
    expect(started.messages.filter((message) => "id" in message)).toHaveLength(RELEASE_BATCH);
    expect(answered).toBe(RELEASE_BATCH);
    const end = deliveredWhere(started, hasId(199), () => undefined);
    out.release();
    await end;
    expect(started.messages.flatMap((message) => ("id" in message ? [message.id] : []))).toEqual(Array.from({ length: 200 }, (_, id) => id));
  });

  test("a short chunk that passes the held-lines bound is read only up to the line that passed it; the rest waits for stdout", async () => {
    const { writer, started, out } = await fullTransport();
    let released = false;
    const whenDelivered = new Map<string, boolean>();
    const record = (message: JSONRPCMessage): void => {
      if ("method" in message && !("id" in message)) whenDelivered.set(message.method, released);
    };
    // Held up to ten lines under the bound; the notification after them says they were read.
    const first = deliveredWhere(started, isMethod("notifications/first"), record);
    await writer.write(pings(0, MAX_HELD_LINES - 10) + notification("notifications/first"));
    await first;
    // One short write: the 11th request passes the bound (stdin pauses there); the notification right after it is
    // not read until stdout drains, as if it had waited in the pipe.
    const paused = new Promise<void>((resolve) => started.stdin.once("pause", resolve));
    await writer.write(pings(MAX_HELD_LINES - 10, 11) + notification("notifications/second") + pings(MAX_HELD_LINES + 1, 5) + ping("end"));
    await paused;
    const end = deliveredWhere(started, hasId("end"), record);
    released = true;
    out.release();
    await end;
    expect(whenDelivered.get("notifications/first")).toBe(false);
    expect(whenDelivered.get("notifications/second")).toBe(true);
    // Every request was handed on once, in order.
    const ids = started.messages.flatMap((message) => ("id" in message ? [message.id] : []));
    expect(ids).toEqual([...Array.from({ length: MAX_HELD_LINES + 6 }, (_, id) => id), "end"]);
  });

  test("at the drain, what the client sent is read up to the ceiling line by line: the notification past it comes after a held request", async () => {
    const { writer, started, out } = await fullTransport();
    const paused = new Promise<void>((resolve) => started.stdin.once("pause", resolve));
    // MAX_HELD_LINES + 1 held: stdin pauses at the last.
    await writer.write(pings(0, MAX_HELD_LINES + 1));
    await paused;
    // Sent while stdin is paused: read at the drain before anything held is handed on, up to twice MAX_HELD_LINES
    // held. The request that passes that ceiling and the notification right after it come in one short write.
    await writer.write(pings(MAX_HELD_LINES + 1, MAX_HELD_LINES - 1));
    await writer.write(ping(2 * MAX_HELD_LINES) + notification("notifications/past") + pings(2 * MAX_HELD_LINES + 1, 5) + ping("end"));
    const end = deliveredWhere(started, hasId("end"), () => undefined);
    out.release();
    await end;
    const order = started.messages.map((message) => ("id" in message ? message.id : "method" in message ? message.method : undefined));
    // Past the ceiling: handed on once a batch of held requests made room, not before the first of them.
    expect(order.indexOf("notifications/past")).toBeGreaterThan(order.indexOf(0));
    expect(order.filter((entry) => typeof entry === "number")).toEqual(Array.from({ length: 2 * MAX_HELD_LINES + 6 }, (_, id) => id));
  });
});
