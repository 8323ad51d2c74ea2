import { PassThrough, Writable } from "node:stream";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { BoundedStdioTransport, MAX_HELD_LINES, respondedId } from "../../../src/mcp/stdio/transport.js";
import { heldStdout } from "../../support/stdio-transport.js";

async function started(
  stdout: Writable,
  maxMessageBytes = 1024,
  heldInputBytes?: number,
): Promise<{ stdin: PassThrough; transport: BoundedStdioTransport; messages: JSONRPCMessage[] }> {
  const stdin = new PassThrough();
  const transport = new BoundedStdioTransport({ maxMessageBytes, stdin, stdout, ...(heldInputBytes === undefined ? {} : { heldInputBytes }) });
  const messages: JSONRPCMessage[] = [];
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  return { stdin, transport, messages };
}

/** V8's full collection, so what is measured after it is what is retained. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** An invalid line whose reply fills a `heldStdout` (its write is held past the 64-byte high-water mark). */
const FILL = '{"jsonrpc":"2.0","id":"fill","method":"x","bad":"' + "x".repeat(100) + '"}\n';

/** Resolves on the next turn of the event loop, after what the transport put off to it (setImmediate runs in order). */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const errorReplyInFlight = (id: number | string): unknown => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32600, message: "Invalid Request: the id is already used by a request in flight" },
});

/** Resolves once `stream` has emitted `event`. */
function once(stream: NodeJS.EventEmitter, event: string): Promise<void> {
  return new Promise((resolve) => {
    stream.once(event, () => {
      resolve();
    });
  });
}

describe("BoundedStdioTransport", () => {
  test("pauses stdin while stdout is full once the held input passes its bound, and resumes it on drain", async () => {
    const out = heldStdout();
    const { stdin } = await started(out.stdout, 1024, 256);
    const flood = Array.from({ length: 20 }, (_, id) => `{"jsonrpc":"2.0","id":${id},"method":"x","bad":1}\n`).join("");
    const paused = once(stdin, "pause");
    stdin.write(flood);
    await paused;
    expect(stdin.isPaused()).toBe(true);
    const resumed = once(stdin, "resume");
    out.release();
    await resumed;
    // The last replies were handed to stdout with the resume; the stream writes them on its next turns.
    await expect.poll(() => out.written.length).toBe(20);
    expect(out.written.map((line) => (JSON.parse(line) as { id: number }).id)).toEqual(Array.from({ length: 20 }, (_, id) => id));
  });

  test("answers an oversized line with its id and delivers the next one", async () => {
    const out = heldStdout();
    out.release();
    const { stdin, messages } = await started(out.stdout);
    const big = JSON.stringify({ jsonrpc: "2.0", method: "ping", params: { pad: "x".repeat(5000) }, id: 77 });
    const next = once(stdin, "data");
    stdin.write(`${big}\n{"jsonrpc":"2.0","id":78,"method":"ping"}\n`);
    await next;
    expect(JSON.parse(out.written[0] ?? "")).toEqual({
      jsonrpc: "2.0",
      id: 77,
      error: { code: -32600, message: "Invalid Request: the message exceeds the 1024-byte limit" },
    });
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 78, method: "ping" }]);
  });

  test("a protocol handler that throws is reported, and reading goes on", async () => {
    const out = heldStdout();
    const { stdin, transport } = await started(out.stdout);
    const errors: string[] = [];
    const seen: unknown[] = [];
    transport.onerror = (error) => errors.push(error.message);
    transport.onmessage = (message) => {
      seen.push(message);
      throw new Error("boom");
    };
    const data = once(stdin, "data");
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await data;
    expect(seen).toHaveLength(2);
    expect(errors).toEqual(["boom", "boom"]);
  });

  test("close stops reading, reports onclose once and refuses to send", async () => {
    const out = heldStdout();
    const { stdin, transport, messages } = await started(out.stdout);
    let closed = 0;
    transport.onclose = () => (closed += 1);
    await transport.close();
    await transport.close();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect(messages).toEqual([]);
    expect(closed).toBe(1);
    await expect(transport.send({ jsonrpc: "2.0", id: 1, result: {} })).rejects.toThrow(/closed/u);
  });

  test("a request whose id is in flight is refused and not delivered, until its response is sent or the turn after the client cancels it", async () => {
    const out = heldStdout();
    out.release();
    const { stdin, transport, messages } = await started(out.stdout);
    const ids = (): unknown[] => messages.map((message) => ("id" in message ? message.id : "method" in message ? message.method : undefined));
    const feed = async (lines: string): Promise<void> => {
      const data = once(stdin, "data");
      stdin.write(lines);
      await data;
    };
    const request = (id: string | number): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x" } })}\n`;
    await feed(request(1) + request(1) + request("1") + '{"jsonrpc":"2.0","id":1,"method":"x","bad":1}\n' + request(1));
    // 1 and "1" are distinct; the duplicates are refused, and the refusal of a malformed line with id 1 does not free the id.
    expect(ids()).toEqual([1, "1"]);
    expect(out.written.map((line) => JSON.parse(line) as unknown)).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid Request: the id is already used by a request in flight" } },
      { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid Request: unknown top-level field" } },
      { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "Invalid Request: the id is already used by a request in flight" } },
    ]);

    await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await feed(request(1));
    expect(ids()).toEqual([1, "1", 1]);

    // The SDK aborts a canceled call by id on a later microtask: a request with that id in the same chunk would take that abort.
    await feed(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })}\n${request(1)}`);
    expect(ids()).toEqual([1, "1", 1, "notifications/cancelled"]);
    expect(out.written.at(-1)).toBe(`${JSON.stringify(errorReplyInFlight(1))}\n`);
    await turn();
    await feed(request(1));
    expect(ids()).toEqual([1, "1", 1, "notifications/cancelled", 1]);
  });
  test('a cancel names its request by the id as written: 1.0, 1e0, "1", -0 or 2^53-1 written with a fraction cancel no request', async () => {
    const out = heldStdout();
    out.release();
    const { stdin, messages } = await started(out.stdout);
    const feed = async (lines: string): Promise<void> => {
      const data = once(stdin, "data");
      stdin.write(lines);
      await data;
    };
    const request = (id: number): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "x" } })}\n`;
    const cancelWritten = (requestId: string): string => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${requestId}}}\n`;
    const max = Number.MAX_SAFE_INTEGER;
    await feed(request(1) + request(0) + request(max));
    await feed(["1.0", "1e0", '"1"', "-0", "-0.0", "0e5", `${max}.0`, "9007199254740990.9999999", "9007199254740993"].map(cancelWritten).join(""));
    // Each request is still in flight: a second request with its id is refused, so the cancels freed none of them.
    await feed(request(1) + request(0) + request(max));
    const refusals = out.written.map((line) => JSON.parse(line) as { id: unknown; error: { message: string } });
    expect(refusals.map((reply) => [reply.id, reply.error.message])).toEqual(
      [1, 0, max].map((id) => [id, "Invalid Request: the id is already used by a request in flight"]),
    );
    // Only the string cancel reached the protocol layer (it names the request "1", another id); the others were dropped.
    expect(messages.map((message) => ("id" in message ? message.id : "params" in message ? message.params?.requestId : undefined))).toEqual([1, 0, max, "1"]);
    // Written as the ids were, the cancels end requests 1 and 2^53-1. The SDK aborts no request with the id 0 (a falsy id:
    // it runs on and is answered), so that id stays in flight until its response.
    await feed(cancelWritten("1") + cancelWritten(String(max)) + cancelWritten("0"));
    await turn();
    await feed(request(1) + request(max) + request(0));
    expect(messages.filter((message) => "id" in message).map((message) => ("id" in message ? message.id : undefined))).toEqual([1, 0, max, 1, max]);
    expect((JSON.parse(out.written.at(-1) ?? "") as { id: unknown }).id).toBe(0);
  });

  test('tells oncancel of a cancel for a request handed on with the id 0 or "" (the SDK ignores those), at once and a turn later while still in flight', async () => {
    const out = heldStdout();
    out.release();
    const { stdin, transport } = await started(out.stdout);
    const told: unknown[] = [];
    transport.oncancel = (id) => told.push(id);
    const request = (id: number | string): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;
    const cancel = (requestId: string): string => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${requestId}}}\n`;
    // Requests and their cancels in one chunk: the protocol layer starts a handler on a later microtask, so the call a
    // cancel stops may exist only a turn later (told then again). The SDK aborts 7 itself; 8 was never sent.
    let data = once(stdin, "data");
    stdin.write(request(0) + request("") + request(7) + ["0", '""', "7", '"7"', "8", "1.0", "-0", "1e0"].map(cancel).join(""));
    await data;
    expect(told).toEqual([0, ""]);
    await turn();
    expect(told).toEqual([0, "", 0, ""]);
    // Request 0 answered (its id free again) and a new request 0 before the turn: the cancel was for the first one.
    for (const id of [0, ""]) await transport.send({ jsonrpc: "2.0", id, result: {} });
    transport.onmessage = (message) => {
      if ("method" in message && message.method === "notifications/cancelled") void transport.send({ jsonrpc: "2.0", id: 0, result: {} });
    };
    data = once(stdin, "data");
    stdin.write(request(0) + cancel("0") + request(0));
    await data;
    await turn();
    expect(told).toEqual([0, "", 0, "", 0]);
  });

  test("while stdout is full, a cancel whose requestId is written otherwise than its request's id drops no held request", async () => {
    const out = heldStdout();
    const { stdin, transport, messages } = await started(out.stdout);
    const fed = once(stdin, "data");
    stdin.write(FILL);
    await fed;
    const cancelWritten = (requestId: string): string => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${requestId}}}\n`;
    const request = (id: number | string): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;
    const more = once(stdin, "data");
    const max = Number.MAX_SAFE_INTEGER;
    stdin.write(request(1) + request(0) + request(max) + ["1.0", "1e0", '"1"', "-0", `${max}.0`].map(cancelWritten).join("") + request("end"));
    await more;
    // The last held request handed on (the release goes a batch per turn).
    const last = new Promise<void>((resolve) => {
      transport.onmessage = (message) => {
        messages.push(message);
        if ("id" in message && message.id === "end") resolve();
      };
    });
    out.release();
    await last;
    expect(messages.map((message) => ("id" in message ? message.id : "notification"))).toEqual(["notification", 1, 0, max, "end"]);
  });

  test("while stdout is full, requests are held, notifications are handed on, and a cancel drops its held request", async () => {
    const out = heldStdout();
    const { stdin, messages } = await started(out.stdout);
    const ids = (): unknown[] => messages.map((message) => ("id" in message ? message.id : "method" in message ? message.method : undefined));
    const request = (id: number): string => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;
    const cancel = (id: number): string => `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } })}\n`;
    // An invalid line's reply fills stdout (its write is held past the 64-byte high-water mark).
    const fed = once(stdin, "data");
    stdin.write('{"jsonrpc":"2.0","id":"fill","method":"x","bad":"' + "x".repeat(100) + '"}\n');
    await fed;
    expect(out.written).toHaveLength(1);

    const more = once(stdin, "data");
    stdin.write(request(1) + request(2) + cancel(1) + '{"jsonrpc":"2.0","id":3,"method":"x","bad":1}\n');
    await more;
    // The cancel was handed on at once; the requests and the invalid line's reply wait.
    expect(ids()).toEqual(["notifications/cancelled"]);
    expect(out.written).toHaveLength(1);
    expect(stdin.isPaused()).toBe(false);

    const drained = once(out.stdout, "drain");
    out.release();
    await drained;
    // Request 1 was canceled before it was handed on: it never reaches the protocol layer.
    expect(ids()).toEqual(["notifications/cancelled", 2]);
    expect(out.written.slice(1).map((line) => (JSON.parse(line) as { id: unknown }).id)).toEqual([3]);
  });

  test("the end of stdin is seen while stdout is full; held requests are refused at shutdown and untilFlushed gives up", async () => {
    const out = heldStdout();
    const { stdin, transport, messages } = await started(out.stdout);
    const fed = once(stdin, "data");
    stdin.write('{"jsonrpc":"2.0","id":"fill","method":"x","bad":"' + "x".repeat(100) + '"}\n');
    await fed;
    const ended = once(stdin, "end");
    stdin.end(`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" })}\n{"jsonrpc":"2.0","id":8,"method":"x","bad":1}\n`);
    await ended;
    expect(messages).toEqual([]);
    transport.refuseRequests("shutting down");
    expect(await transport.untilFlushed(0)).toBe(false);
    out.release();
    expect(await transport.untilFlushed(60_000)).toBe(true);
    expect(messages).toEqual([]);
    expect(out.written.slice(-2).map((line) => JSON.parse(line) as unknown)).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32603, message: "shutting down" } },
      { jsonrpc: "2.0", id: 8, error: { code: -32600, message: "Invalid Request: unknown top-level field" } },
    ]);
  });
  test("pauses stdin once more than MAX_HELD_LINES lines are held, however small they are", async () => {
    const out = heldStdout();
    const { stdin } = await started(out.stdout);
    const fed = once(stdin, "data");
    stdin.write('{"jsonrpc":"2.0","id":"fill","method":"x","bad":"' + "x".repeat(100) + '"}\n');
    await fed;
    const paused = once(stdin, "pause");
    stdin.write(Array.from({ length: MAX_HELD_LINES + 1 }, (_, id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`).join(""));
    await paused;
    expect(stdin.isPaused()).toBe(true);
  });
  test("once stdout drains, held requests are handed on a few per turn and in order, before any read after them", async () => {
    const out = heldStdout();
    const { stdin, messages } = await started(out.stdout);
    const ids = (): unknown[] => messages.map((message) => ("id" in message ? message.id : undefined));
    const fed = once(stdin, "data");
    stdin.write('{"jsonrpc":"2.0","id":"fill","method":"x","bad":"' + "x".repeat(100) + '"}\n');
    await fed;
    const more = once(stdin, "data");
    stdin.write(Array.from({ length: 100 }, (_, id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`).join(""));
    await more;
    expect(messages).toEqual([]);

    // The transport's own drain listener ran first: one turn's batch, not all 100 at once (each would queue its answer).
    const firstTurn = new Promise<number>((resolve) => out.stdout.once("drain", () => resolve(messages.length)));
    out.release();
    const handedOn = await firstTurn;
    expect(handedOn).toBeGreaterThan(0);
    expect(handedOn).toBeLessThan(100);
    const late = once(stdin, "data");
    stdin.write('{"jsonrpc":"2.0","id":"late","method":"ping"}\n');
    await late;
    await expect.poll(() => messages.length).toBe(101);
    expect(ids()).toEqual([...Array.from({ length: 100 }, (_, id) => id), "late"]);
  });

  test("requests held while stdout is full cost memory near their text, whatever their shape", async () => {
    const gc = collector();
    // A stdout that never drains: the client does not read.
    const stdout = new Writable({
      highWaterMark: 16,
      write() {
        // never completes
      },
    });
    const maxMessageBytes = 1024 * 1024;
    const { stdin, transport, messages } = await started(stdout, maxMessageBytes);
    const fed = once(stdin, "data");
    stdin.write(FILL);
    await fed;
    gc();
    const retained = (): number => {
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.external;
    };
    const before = retained();
    // tools/call lines just under 1 MiB whose arguments are 340,000 empty objects: parsed, each took about 25 MB.
    const body = "{},".repeat(340_000);
    let lines = 0;
    while (!stdin.isPaused()) {
      const line = `{"jsonrpc":"2.0","id":${lines},"method":"tools/call","params":{"name":"kubectl","arguments":{"a":[${body}{}]}}}\n`;
      expect(Buffer.byteLength(line)).toBeLessThan(maxMessageBytes);
      const read = once(stdin, "data");
      stdin.write(line);
      await read;
      lines += 1;
    }
    gc();
    const grown = retained() - before;
    // Held up to the 8 MiB bound (and the line past it); nothing was handed on.
    expect(lines).toBe(9);
    expect(messages).toEqual([]);
    expect(grown).toBeLessThan(24 * 1024 * 1024);
    await transport.close();
  });
});

describe("the request a sent message answers, told by its shape", () => {
  test("a result or an error response answers its id; a request or a notification the server sends answers none", () => {
    expect(respondedId({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text: "x" }] } })).toBe(7);
    expect(respondedId({ jsonrpc: "2.0", id: "a", error: { code: -32603, message: "failed" } })).toBe("a");
    expect(respondedId({ jsonrpc: "2.0", id: 0, result: {} })).toBe(0);
    expect(respondedId({ jsonrpc: "2.0", id: 7, method: "elicitation/create", params: {} })).toBeUndefined();
    expect(respondedId({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })).toBeUndefined();
    // A parse error's reply names no request (JSON-RPC's null id): it frees none.
    expect(respondedId({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } } as unknown as JSONRPCMessage)).toBeUndefined();
  });
});
