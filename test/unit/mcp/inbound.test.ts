import { describe, expect, test } from "vitest";
import { MAX_BATCH_REPLIES, readInbound } from "../../../src/mcp/stdio/inbound.js";

/** The replies for one line as [code, id] pairs ("message" when it is delivered, undefined when blank). */
function verdict(line: string | Buffer): "message" | [number, unknown][] | undefined {
  const inbound = readInbound(typeof line === "string" ? Buffer.from(line, "utf8") : line);
  if (inbound === undefined) return undefined;
  if (inbound.kind === "message") return "message";
  return inbound.replies.map((reply) => [reply.error.code, reply.id]);
}

const call = '"method":"tools/call","params":{"name":"rec","arguments":{"args":["status"]}}';

describe("readInbound", () => {
  test.each([
    ["a request", `{"jsonrpc":"2.0","id":1,${call}}`],
    ["a request ending in CR", `{"jsonrpc":"2.0","id":1,${call}}\r`],
    ["a notification", '{"jsonrpc":"2.0","method":"notifications/initialized"}'],
    ["a response", '{"jsonrpc":"2.0","id":"s1","result":{}}'],
    ["an unknown method (the protocol layer answers -32601)", '{"jsonrpc":"2.0","id":2,"method":"no/such"}'],
    ["an escaped NUL (valid JSON)", '{"jsonrpc":"2.0","id":2,"method":"x\\u0000y"}'],
    ["a surrogate pair", '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":"\\ud83d\\ude00"}}'],
    ["__proto__ as a value, and a constructor key", '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":"__proto__","constructor":1}}'],
  ])("delivers %s", (_name, line) => {
    expect(verdict(line)).toBe("message");
  });

  test.each([
    ["an unknown top-level field", `{"jsonrpc":"2.0","id":7,${call},"shell":true}`, 7],
    ["a string id", `{"jsonrpc":"2.0","id":"abc","extra":1,${call}}`, "abc"],
    ["jsonrpc 1.0", `{"jsonrpc":"1.0","id":8,${call}}`, 8],
    ["no jsonrpc", `{"id":9,${call}}`, 9],
    ["a numeric method", '{"jsonrpc":"2.0","id":10,"method":5}', 10],
    ["string params", '{"jsonrpc":"2.0","id":11,"method":"ping","params":"x"}', 11],
    ["array params (MCP params are named)", '{"jsonrpc":"2.0","id":12,"method":"ping","params":[1]}', 12],
    ["a fractional id", '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 1.5],
    ["an id without method, result or error", '{"jsonrpc":"2.0","id":13}', 13],
    ["a lone surrogate in an argument", '{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"rec","arguments":{"args":["a\\ud800"]}}}', 14],
    ["a lone surrogate in a key", '{"jsonrpc":"2.0","id":15,"method":"ping","params":{"\\udc00":1}}', 15],
    [
      "a __proto__ key in the arguments",
      '{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"rec","arguments":{"args":["a"],"__proto__":{"x":1}}}}',
      16,
    ],
    ["a __proto__ key deep in _meta", '{"jsonrpc":"2.0","id":17,"method":"ping","params":{"_meta":{"a":[{"__proto__":null}]}}}', 17],
    ["a null id", '{"jsonrpc":"2.0","id":null,"method":"ping"}', undefined],
    ["an integer id past 2^53 (not echoed as its rounded neighbour)", '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', undefined],
    ["an integer id written as 1.2345678901234568e29", '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}', undefined],
    [
      "an id 1.00000000000000001 (JSON.parse reads 1: neither run nor answered as request 1)",
      '{"jsonrpc":"2.0","id":1.00000000000000001,"method":"ping"}',
      undefined,
    ],
    ["an id 1.0", '{"jsonrpc":"2.0","id":1.0,"method":"ping"}', undefined],
    ["an id 1e0", '{"jsonrpc":"2.0","id":1e0,"method":"ping"}', undefined],
    ["an id -0 (echoed, it would read 0)", '{"jsonrpc":"2.0","id":-0,"method":"ping"}', undefined],
    ["an invalid request whose id 7.0 would be echoed as 7", '{"jsonrpc":"2.0","id":7.0,"method":1}', undefined],
    ["a fraction written past double precision", '{"jsonrpc":"2.0","id":1.10000000000000001,"method":"ping"}', undefined],
    ["an object id", '{"jsonrpc":"2.0","id":{},"method":"ping"}', undefined],
    ["a bare value", "42", undefined],
    ["null", "null", undefined],
    ["an object that is no message", '{"foo":"bar"}', undefined],
    ["a method that is no string, without id", '{"jsonrpc":"2.0","method":1}', undefined],
  ])("answers %s with -32600", (_name, line, id) => {
    expect(verdict(line)).toEqual([[-32600, id]]);
  });

  test.each([
    ["truncated JSON", '{"jsonrpc":"2.0","id":3,"method":'],
    ["text", "not json"],
    ["a raw NUL", '{"jsonrpc":"2.0","id":3,"method":"a\u0000"}'],
    ["a raw CR inside a string", '{"jsonrpc":"2.0","id":3,"method":"a\rb"}'],
    ["a byte-order mark", '\ufeff{"jsonrpc":"2.0","id":3,"method":"ping"}'],
  ])("answers %s with -32700 and no id", (_name, line) => {
    expect(verdict(line)).toEqual([[-32700, undefined]]);
  });

  test.each([
    ["tools/call with null arguments", '{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"rec","arguments":null}}', 20, "params.arguments"],
    ["tools/call with a numeric name", '{"jsonrpc":"2.0","id":"n","method":"tools/call","params":{"name":5}}', "n", "params.name"],
    ["tools/call without params", '{"jsonrpc":"2.0","id":21,"method":"tools/call"}', 21, "params"],
    [
      "initialize without clientInfo",
      '{"jsonrpc":"2.0","id":22,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}',
      22,
      "params.clientInfo",
    ],
  ])("answers %s with -32602 naming the path", (_name, line, id, where) => {
    const inbound = readInbound(Buffer.from(line, "utf8"));
    expect(inbound?.kind).toBe("reject");
    const replies = inbound?.kind === "reject" ? inbound.replies : [];
    expect(replies).toEqual([{ jsonrpc: "2.0", id, error: { code: -32602, message: expect.stringContaining(`${where}: `) as unknown } }]);
  });

  test("answers invalid UTF-8 with -32700, keeping an id that is still readable", () => {
    const line = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rec","arguments":{"args":["'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"]}}}'),
    ]);
    expect(verdict(line)).toEqual([[-32700, 4]]);
    const rounded = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":4.000000000000000001,"method":"ping","params":{"a":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}}'),
    ]);
    expect(verdict(rounded)).toEqual([[-32700, undefined]]);
    expect(verdict(Buffer.from([0xff, 0xfe, 0x0d]))).toEqual([[-32700, undefined]]);
  });

  test("never echoes an id that holds invalid UTF-8: parsed, its bytes read as U+FFFD, an id the client never sent", () => {
    const line = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"a'), Buffer.from([0xff]), Buffer.from('","method":"ping"}')]);
    expect(verdict(line)).toEqual([[-32700, undefined]]);
    // A U+FFFD the client did write (valid UTF-8) is its id: echoed.
    const written = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"a\uFFFD","method":"ping","params":{"x":"'), Buffer.from([0xff]), Buffer.from('"}}')]);
    expect(verdict(written)).toEqual([[-32700, "a\uFFFD"]]);
  });

  test.each([
    ["an invalid notification", '{"jsonrpc":"2.0","method":"notifications/x","extra":1}'],
    ["a notification with a lone surrogate", '{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\\ud800"}}'],
    ["an invalid response", '{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":"m"}}'],
    ["a response with an unknown field", '{"jsonrpc":"2.0","id":5,"result":{},"x":1}'],
    ["a response whose id 5.0 would be read as 5", '{"jsonrpc":"2.0","id":5.0,"result":{}}'],
  ])("drops %s without a reply", (_name, line) => {
    expect(verdict(line)).toEqual([]);
  });

  test("answers each request of a batch with -32600 and its id, and an id-less batch once", () => {
    expect(verdict('[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"b","method":"ping"}]')).toEqual([
      [-32600, 1],
      [-32600, "b"],
    ]);
    expect(verdict("[]")).toEqual([[-32600, undefined]]);
    expect(verdict('[{"jsonrpc":"2.0","method":"n"}]')).toEqual([[-32600, undefined]]);
  });

  test("a batch of more than MAX_BATCH_REPLIES requests gets one reply without id, not one per request", () => {
    const batch = (count: number): string => `[${Array.from({ length: count }, (_, id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`).join(",")}]`;
    expect(verdict(batch(MAX_BATCH_REPLIES))).toHaveLength(MAX_BATCH_REPLIES);
    expect(verdict(batch(MAX_BATCH_REPLIES + 1))).toEqual([[-32600, undefined]]);
    // Notifications in a batch get no reply, so they do not count.
    const notifications = Array.from({ length: MAX_BATCH_REPLIES }, () => '{"jsonrpc":"2.0","method":"n"}').join(",");
    expect(verdict(`[${notifications},{"jsonrpc":"2.0","id":"x","method":"ping"}]`)).toEqual([[-32600, "x"]]);
  });

  test("echoes a batch element's number id only when its text is the integer's own, as for a top-level id", () => {
    const element = (id: string): string => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
    const spellings = ["1.0", "1e0", "-0", "1E2", "9007199254740993", "12345678901234567890", "1.00000000000000001", "7", '"s"', "-3", "0.5"];
    expect(verdict(`[${spellings.map(element).join(" , ")}]`)).toEqual(
      [undefined, undefined, undefined, undefined, undefined, undefined, undefined, 7, "s", -3, 0.5].map((id) => [-32600, id]),
    );
    // Elements are told apart by the text's structure: commas and brackets inside strings and nested values split nothing,
    // and an "id" nested in params is not the element's.
    const tricky = '{"jsonrpc":"2.0","method":"a\\",]}[","params":{"id":1.0,"x":[1,{"id":2}]},"id":2}';
    expect(verdict(`[ ${tricky},\t${element("1.0")} ,{"jsonrpc":"2.0","id":4,"method":"ping","params":{"id":4.0}}]`)).toEqual([
      [-32600, 2],
      [-32600, undefined],
      [-32600, 4],
    ]);
  });

  test("refuses a fractional request id by Torii's own integer-id rule (the one a cancel's requestId follows), echoing it as written", () => {
    for (const method of ['"method":"ping"', call, '"method":"tools/list"']) {
      const inbound = readInbound(Buffer.from(`{"jsonrpc":"2.0","id":1.5,${method}}`, "utf8"));
      expect(inbound?.kind === "reject" ? inbound.replies : inbound).toEqual([
        {
          jsonrpc: "2.0",
          id: 1.5,
          error: { code: -32600, message: "Invalid Request: a number id must be written as an integer (no fraction, exponent or -0)" },
        },
      ]);
    }
  });

  test("drops, without reply, a cancel whose number requestId is not written as its own integer: it would cancel another id", () => {
    const cancelOf = (params: string): string => `{"jsonrpc":"2.0","method":"notifications/cancelled","params":${params}}`;
    // JSON.parse reads each of these as an integer a request may hold (1, 0, 100, 2^53-1) or as 2^53, which none holds.
    for (const spelling of [
      "1.0",
      "1e0",
      "1E0",
      "10e-1",
      "-0",
      "-0.0",
      "1E2",
      "1.00000000000000001",
      "9007199254740991.0",
      "9007199254740993",
      "12345678901234567890",
      // No request in flight has a fractional id (refused as a request id), so a cancel naming one cancels nothing.
      "1.5",
      "0.5",
      "-2.25",
    ])
      expect([spelling, verdict(cancelOf(`{"requestId":${spelling}}`))]).toEqual([spelling, []]);
    // As written, each names its request: a string is never a number, and the key is read as JSON.parse reads it.
    for (const params of [
      '{"requestId":1}',
      '{"requestId":"1"}',
      '{"requestId":"1.0"}',
      '{"requestId":0}',
      '{"requestId":-3}',
      '{"requestId":9007199254740991}',
    ])
      expect([params, verdict(cancelOf(params))]).toEqual([params, "message"]);
    for (const params of [
      '{"requestId":1,"requestId":1.0}', // the last member wins, as in JSON.parse
      '{"request\\u0049d":1.0}', // the key, once decoded, is requestId
      '{"reason":"a \\"requestId\\":1,","x":{"requestId":1},"requestId":1.0}', // nested and quoted look-alikes are not the member
      ' { "requestId" : 1e0 } ',
    ])
      expect([params, verdict(cancelOf(params))]).toEqual([params, []]);
    expect(verdict(`{"params":{"x":[{"requestId":1.0}],"requestId" :\t1 },"jsonrpc":"2.0","method":"notifications/cancelled"}`)).toBe("message");
    expect(verdict(`{"params":{"requestId":1},"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.0}}`)).toEqual([]);
  });

  test.each(["", "   ", "\r", " \t\r"])("ignores the blank line %j", (line) => {
    expect(verdict(line)).toBeUndefined();
  });

  test("survives deep nesting without exhausting the stack", () => {
    const depth = 200_000;
    const deep = `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
    expect(verdict(deep)).toBe("message");
    const deepBad = `{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":${"[".repeat(depth)}"\\ud800"${"]".repeat(depth)}}}`;
    expect(verdict(deepBad)).toEqual([[-32600, 6]]);
  });
});
