/**
 * The stall watch: while stdout is full, a period in which it took nothing tells `onstall`, once (the server
 * then shuts down, serve-lifecycle.ts); a stdout that takes something each period is waited for. Fake timers
 * stand for the period (only setTimeout: the stream's own ticks and immediates run as they do).
 */
import { Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { startedOn } from "../../support/stdio-transport.js";

const STALL_MS = 1_000;

/** A stdout whose writes complete one at a time, when the test says so. */
function steppedStdout(): { stdout: Writable; completeOne(): void } {
  const pending: (() => void)[] = [];
  const stdout = new Writable({
    highWaterMark: 1,
    write(_chunk: Buffer, _encoding, callback) {
      pending.push(callback);
    },
  });
  return { stdout, completeOne: () => pending.shift()?.() };
}

/** Lets the stream's callbacks (ticks, immediates) run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const result = (id: number): JSONRPCMessage => ({ jsonrpc: "2.0", id, result: {} });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("BoundedStdioTransport's stall watch", () => {
  test("tells onstall once when stdout stays full and takes nothing for stallMs", async () => {
    const { stdout } = steppedStdout();
    const { transport } = await startedOn(stdout, { stallMs: STALL_MS });
    const stalls: string[] = [];
    transport.onstall = (why) => stalls.push(why);
    void transport.send(result(1));
    await turn();
    expect(transport.whenWritable()).toBeDefined();
    vi.advanceTimersByTime(STALL_MS - 1);
    expect(stalls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stalls).toEqual([`stdout took nothing for ${STALL_MS} ms while replies waited (the client stopped reading or went away)`]);
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(stalls).toHaveLength(1);
    await transport.close();
  });

  test("waits for a stdout that takes something each period, and tells onstall after the first period without progress", async () => {
    const out = steppedStdout();
    const { transport } = await startedOn(out.stdout, { stallMs: STALL_MS });
    const stalls: string[] = [];
    transport.onstall = (why) => stalls.push(why);
    for (const id of [1, 2, 3, 4]) void transport.send(result(id));
    await turn();
    // Each period, one write completes (the client read a reply): stdout is still full, but it is read.
    for (let period = 0; period < 3; period += 1) {
      out.completeOne();
      await turn();
      vi.advanceTimersByTime(STALL_MS);
      expect(stalls).toEqual([]);
    }
    expect(transport.whenWritable()).toBeDefined();
    // Then the client reads no more.
    vi.advanceTimersByTime(STALL_MS);
    expect(stalls).toHaveLength(1);
    await transport.close();
  });

  test("a stdout that drains stops the watch; without stallMs there is none", async () => {
    const out = steppedStdout();
    const { transport } = await startedOn(out.stdout, { stallMs: STALL_MS });
    const stalls: string[] = [];
    transport.onstall = (why) => stalls.push(why);
    void transport.send(result(1));
    await turn();
    out.completeOne();
    await turn();
    expect(transport.whenWritable()).toBeUndefined();
    vi.advanceTimersByTime(10 * STALL_MS);
    expect(stalls).toEqual([]);
    // Full again: the watch starts again, and tells of the stall.
    void transport.send(result(2));
    await turn();
    vi.advanceTimersByTime(STALL_MS);
    expect(stalls).toHaveLength(1);
    await transport.close();
  });
});
