/**
 * When stdout drains, what the client sent before it read stdout is read before anything held is handed on,
 * so a `notifications/cancelled` in it drops its held request by construction, whichever way it waited:
 * in stdin's own buffer (stdin paused by the hold bound) or in the OS pipe (not read yet by the event loop).
 */
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, test } from "vitest";
import { MAX_HELD_LINES } from "../../../src/mcp/stdio/transport.js";
import { FILL, cancel, heldStdout, idsOf, once, ping, startedOn, type Started } from "../../support/stdio-transport.js";

/** Resolves once a request with `id` was delivered. */
function delivered(started: Started<Readable>, id: number): Promise<void> {
  const { transport, messages } = started;
  return new Promise((resolve) => {
    transport.onmessage = (message) => {
      messages.push(message);
      if ("id" in message && message.id === id) resolve();
    };
  });
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A connected pair of Unix sockets: `server` reads what `client` writes, through the kernel. */
async function socketPair(): Promise<{ client: net.Socket; server: net.Socket }> {
  const dir = mkdtempSync(path.join(tmpdir(), "torii-stdin-"));
  const listener = net.createServer();
  const accepted = new Promise<net.Socket>((resolve) => listener.once("connection", resolve));
  await new Promise<void>((resolve) => listener.listen(path.join(dir, "s"), resolve));
  const client = net.connect(path.join(dir, "s"));
  const server = await accepted;
  await once(client, "connect").catch(() => undefined);
  cleanups.push(() => {
    client.destroy();
    server.destroy();
    listener.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { client, server };
}

describe("BoundedStdioTransport at the drain", () => {
  test("a cancel stdin buffered while paused by the hold bound drops its held request before any is handed on", async () => {
    const out = heldStdout();
    const started = await startedOn(out.stdout, { heldInputBytes: 256 });
    const { stdin, messages } = started;
    const fed = once(stdin, "data");
    stdin.write(FILL);
    await fed;
    const paused = once(stdin, "pause");
    stdin.write(Array.from({ length: 20 }, (_, id) => ping(id)).join(""));
    await paused;
    // Sent after the bound paused stdin: it waits in stdin's buffer, unread.
    stdin.write(cancel(0) + cancel(5));
    expect(stdin.readableLength).toBeGreaterThan(0);
    expect(messages).toEqual([]);

    const last = delivered(started, 19);
    out.release();
    await last;
    expect(idsOf(messages)).toEqual([
      "notifications/cancelled",
      "notifications/cancelled",
      ...Array.from({ length: 20 }, (_, id) => id).filter((id) => id !== 0 && id !== 5),
    ]);
  });

  test("a cancel sent after the drain, while the held requests are handed on a batch per turn, drops its request still held", async () => {
    const out = heldStdout();
    const started = await startedOn(out.stdout, { heldInputBytes: 256 });
    const { stdin, messages } = started;
    const fed = once(stdin, "data");
    stdin.write(FILL);
    await fed;
    const paused = once(stdin, "pause");
    stdin.write(Array.from({ length: 40 }, (_, id) => ping(id)).join(""));
    await paused;

    const last = delivered(started, 39);
    const firstTurn = new Promise<void>((resolve) =>
      out.stdout.once("drain", () => {
        // The transport's drain listener ran first and handed on one batch; the rest waits for the next turns.
        expect(messages.length).toBeGreaterThan(0);
        expect(messages.length).toBeLessThan(20);
        stdin.write(cancel(20));
        resolve();
      }),
    );
    out.release();
    await firstTurn;
    await last;
    expect(idsOf(messages)).not.toContain(20);
    expect(idsOf(messages)).toContain("notifications/cancelled");
  });

  test("what the client sent is read at the drain past the hold's bounds, but not past its ceiling", async () => {
    const out = heldStdout();
    // A stdin that gives one chunk per read, as a pipe read in 64 KiB pieces does.
    const stdin = new Readable({ objectMode: true, read: () => undefined });
    await startedOn(out.stdout, { stdin, heldInputBytes: 256 });
    stdin.push(Buffer.from(FILL));
    const paused = once(stdin, "pause");
    stdin.push(Buffer.from(Array.from({ length: 20 }, (_, id) => ping(id)).join("")));
    await paused;
    // Far more small requests than twice MAX_HELD_LINES, all sent before the client reads stdout.
    const chunks = Math.ceil((2 * MAX_HELD_LINES) / 100) + 10;
    for (let chunk = 0; chunk < chunks; chunk += 1) stdin.push(Buffer.from(Array.from({ length: 100 }, (_, id) => ping(100 + chunk * 100 + id)).join("")));
    expect(stdin.readableLength).toBe(chunks);

    const drained = new Promise<number>((resolve) => out.stdout.once("drain", () => resolve(stdin.readableLength)));
    out.release();
    // Read past the bound (what the client sent), but stopped at the ceiling: the rest is still unread.
    const unread = await drained;
    expect(unread).toBeGreaterThan(0);
    expect(unread).toBeLessThan(chunks);
  });

  test("a cancel still in the OS pipe when stdout drains drops its held request (read without waiting for the event loop)", async () => {
    const { client, server } = await socketPair();
    const out = heldStdout();
    // The test reads the socket's descriptor from Node's internals, as the server reads process.stdin's `fd`.
    const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
    const started = await startedOn(out.stdout, { stdin: server, stdinFd: fd });
    const { messages } = started;
    let fed = once(server, "data");
    client.write(FILL);
    await fed;
    fed = once(server, "data");
    client.write(ping(1) + ping(2));
    await fed;
    expect(messages).toEqual([]);

    const last = delivered(started, 2);
    // Written to the kernel at once, and stdout drained in this same turn: the event loop has not read the cancel.
    client.write(cancel(1));
    expect(client.writableLength).toBe(0);
    out.release();
    await last;
    expect(idsOf(messages)).toEqual(["notifications/cancelled", 2]);
  });
});
