/**
 * The transport's part of the server's shutdown (refuseRequests): nothing more runs, every request still held
 * gets -32603 with its own id in its place, a request read from then on is answered at once, and once stdout is
 * full stdin is read no more. Stdout carries exactly those replies. And what starts it: stdin's end, told
 * (oninputend) only after the lines sent before it were read; stdout's failure or close (onoutputend).
 */
import { describe, expect, test } from "vitest";
import { FILL, cancel, heldStdout, idsOf, once, ping, startedOn } from "../../support/stdio-transport.js";

const INVALID = (id: string): string => `{"jsonrpc":"2.0","id":"${id}","method":"x","bad":1}\n`;

const refused = (id: string | number): unknown => ({ jsonrpc: "2.0", id, error: { code: -32603, message: "down" } });
const invalid = (id: string): unknown => ({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request: unknown top-level field" } });
const fillReply = { jsonrpc: "2.0", id: "fill", error: { code: -32600, message: "Invalid Request: unknown top-level field" } };

const parsed = (written: readonly string[]): unknown[] => written.map((line) => JSON.parse(line) as unknown);

describe("BoundedStdioTransport.refuseRequests", () => {
  test("answers every held request -32603 with its own id, in order, with the held transport replies in their place", async () => {
    const out = heldStdout();
    const { stdin, transport, messages } = await startedOn(out.stdout);
    let fed = once(stdin, "data");
    stdin.write(FILL);
    await fed;
    fed = once(stdin, "data");
    stdin.write(ping(1) + INVALID("r") + ping("two") + cancel(1) + ping(3));
    await fed;
    // Request 1 was canceled while held: it is dropped, never answered.
    expect(idsOf(messages)).toEqual(["notifications/cancelled"]);

    transport.refuseRequests("down");
    // Written past the hold: stdout is full, so stdin is read no more.
    expect(stdin.isPaused()).toBe(true);
    out.release();
    expect(await transport.untilFlushed(60_000)).toBe(true);
    expect(parsed(out.written)).toEqual([fillReply, invalid("r"), refused("two"), refused(3)]);
    expect(idsOf(messages)).toEqual(["notifications/cancelled"]);
  });

  test("a request read after the shutdown began is answered at once and never handed on", async () => {
    const out = heldStdout();
    out.release();
    const { stdin, transport, messages } = await startedOn(out.stdout);
    transport.refuseRequests("down");
    const fed = once(stdin, "data");
    stdin.write(ping(1) + INVALID("r") + ping("two"));
    await fed;
    expect(messages).toEqual([]);
    expect(await transport.untilFlushed(60_000)).toBe(true);
    expect(parsed(out.written)).toEqual([refused(1), invalid("r"), refused("two")]);
    // The first reason stays: a second call (another signal) changes nothing.
    transport.refuseRequests("again");
    const more = once(stdin, "data");
    stdin.write(ping(4));
    await more;
    expect(parsed(out.written).at(-1)).toEqual(refused(4));
  });

  test("once its replies fill stdout, stdin is paused and stays paused when stdout drains", async () => {
    const out = heldStdout();
    const { stdin, transport, messages } = await startedOn(out.stdout);
    let fed = once(stdin, "data");
    stdin.write(FILL);
    await fed;
    transport.refuseRequests("down");
    // Nothing was held: stdin is still read until a reply is written past the full stdout.
    expect(stdin.isPaused()).toBe(false);
    const paused = once(stdin, "pause");
    fed = once(stdin, "data");
    stdin.write(ping(1));
    await fed;
    await paused;
    stdin.write(ping(2));
    expect(stdin.readableLength).toBeGreaterThan(0);

    const drained = once(out.stdout, "drain");
    out.release();
    await drained;
    expect(await transport.untilFlushed(60_000)).toBe(true);
    // Request 2 is still unread: the server runs nothing more, and what it would answer cannot pile up.
    expect(stdin.isPaused()).toBe(true);
    expect(stdin.readableLength).toBeGreaterThan(0);
    expect(parsed(out.written)).toEqual([fillReply, refused(1)]);
    expect(messages).toEqual([]);
  });

  test("stdin paused by the hold bound is not read again: the held requests are answered, what waits past the bound is not read", async () => {
    const out = heldStdout();
    const { stdin, transport, messages } = await startedOn(out.stdout, { heldInputBytes: 256 });
    const fed = once(stdin, "data");
    stdin.write(FILL);
    await fed;
    const paused = once(stdin, "pause");
    stdin.write(Array.from({ length: 10 }, (_, id) => ping(id)).join(""));
    await paused;
    // Past the bound: unread, so never answered (the server exits without reading it).
    stdin.write(ping(10) + cancel(3));

    transport.refuseRequests("down");
    const drained = once(out.stdout, "drain");
    out.release();
    await drained;
    expect(await transport.untilFlushed(60_000)).toBe(true);
    expect(stdin.isPaused()).toBe(true);
    expect(stdin.readableLength).toBeGreaterThan(0);
    expect(messages).toEqual([]);
    // The bound is kept line by line: the 7th request (280 bytes held) passed it, the rest of its chunk is not read either.
    expect(parsed(out.written)).toEqual([fillReply, ...Array.from({ length: 7 }, (_, id) => refused(id))]);
  });
});

describe("BoundedStdioTransport.oninputend", () => {
  test("is told stdin's end only once the lines the hold bound left unread were read: the stream's own end came before them", async () => {
    const out = heldStdout();
    const { stdin, transport, messages } = await startedOn(out.stdout);
    const told: string[] = [];
    transport.oninputend = (why) => told.push(why);
    const filled = once(stdin, "data");
    stdin.write(FILL);
    await filled;
    // One chunk past MAX_HELD_LINES (1,024) held requests, then the end: the reader stops at the bound, mid-chunk.
    const ended = once(stdin, "end");
    stdin.end(Array.from({ length: 1100 }, (_, index) => ping(index)).join("") + cancel(1099));
    await ended;
    expect(told).toEqual([]);
    expect(idsOf(messages)).toEqual([]);
    const toldEnd = new Promise<void>((resolve) => {
      transport.oninputend = (why) => {
        told.push(why);
        resolve();
      };
    });
    out.release();
    await toldEnd;
    expect(told).toEqual(["stdin ended"]);
    // The cancel past the bound was read before the end was told (it dropped its held request).
    expect(idsOf(messages)).toContain("notifications/cancelled");
  });
});

describe("BoundedStdioTransport.onoutputend", () => {
  test("is told once when stdout fails (EPIPE: the client closed its end), whether stdin is open or not; never after close()", async () => {
    const out = heldStdout();
    const { transport } = await startedOn(out.stdout);
    const told: string[] = [];
    transport.onoutputend = (why) => told.push(why);
    const closed = once(out.stdout, "close");
    out.stdout.destroy(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    await closed;
    expect(told).toEqual(["stdout failed: write EPIPE"]);

    const other = heldStdout();
    const second = await startedOn(other.stdout);
    second.transport.onoutputend = (why) => told.push(why);
    await second.transport.close();
    const otherClosed = once(other.stdout, "close");
    other.stdout.destroy();
    await otherClosed;
    expect(told).toEqual(["stdout failed: write EPIPE"]);
  });
});
