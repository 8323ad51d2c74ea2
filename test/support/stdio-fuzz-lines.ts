/**
 * fast-check arbitraries for stdin lines of the MCP stdio server: valid calls,
 * other valid messages, and the same messages broken at the object level
 * (unknown fields, wrong types, odd ids, deep nesting, lone surrogates, long
 * method names) and at the byte level (truncation, NUL, CR, invalid UTF-8,
 * stray newlines), plus huge lines around the size limit, batches and garbage.
 */
import fc from "fast-check";
import { ALLOWED } from "./stdio-oracle.js";

type Message = Record<string, unknown>;

/** A small pool first, so duplicate ids are common. */
const id = fc.oneof({ weight: 3, arbitrary: fc.constantFrom<string | number>(1, 2, 3, "a", "dup", 0, "") }, fc.integer(), fc.string({ maxLength: 12 }));
const token = fc.stringMatching(/^[a-z0-9._-]{1,12}$/u);

const allowedCall = fc.record({ id, token }).map(({ id, token }): Message => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: ALLOWED.tool, arguments: { args: [ALLOWED.firstArg, token] } },
}));

const otherMessage = fc.oneof(
  id.map((id): Message => ({ jsonrpc: "2.0", id, method: "ping" })),
  id.map((id): Message => ({ jsonrpc: "2.0", id, method: "tools/list" })),
  fc.record({ id, method: fc.string({ maxLength: 20 }) }).map(({ id, method }): Message => ({ jsonrpc: "2.0", id, method })),
  // notifications/cancelled is left out: it may cancel a request of the same batch, which then gets no reply by design.
  fc
    .string({ maxLength: 12 })
    .filter((name) => name !== "cancelled")
    .map((name): Message => ({ jsonrpc: "2.0", method: `notifications/${name}` })),
  id.map((id): Message => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: ALLOWED.tool, arguments: { args: ["not-allowed"] } } })),
  id.map((id): Message => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "no-such-tool", arguments: { args: [ALLOWED.firstArg] } } })),
  id.map((id): Message => ({ jsonrpc: "2.0", id, result: {} })),
);

const baseMessage = fc.oneof(allowedCall, otherMessage);

function nested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { n: value };
  return value;
}

function withArg(message: Message, arg: string): Message {
  return { ...message, params: { name: ALLOWED.tool, arguments: { args: [ALLOWED.firstArg, arg] } } };
}

const objectMutation: fc.Arbitrary<(message: Message) => Message> = fc.oneof(
  fc
    .record({
      key: fc.string({ minLength: 1, maxLength: 8 }).filter((key) => !["jsonrpc", "id", "method", "params", "result", "error"].includes(key)),
      value: fc.jsonValue({ maxDepth: 2 }),
    })
    .map(({ key, value }) => (message: Message) => ({ ...message, [key]: value })),
  fc.constantFrom<unknown>("1.0", 2, null, "2.0 ", undefined).map((jsonrpc) => (message: Message) => ({ ...message, jsonrpc })),
  fc.oneof(fc.integer(), fc.constant(null), fc.jsonValue({ maxDepth: 1 })).map((method) => (message: Message) => ({ ...message, method })),
  fc
    .oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }), fc.constant(null))
    .map((params) => (message: Message) => ({ ...message, params })),
  fc
    .oneof(
      fc.constant(null),
      fc.boolean(),
      fc.double(),
      fc.constant({}),
      fc.constant([1]),
      fc.string({ maxLength: 300 }),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    )
    .map((newId) => (message: Message) => ({ ...message, id: newId })),
  fc.constant((message: Message) => Object.fromEntries(Object.entries(message).filter(([key]) => key !== "id"))),
  fc.integer({ min: 200, max: 3000 }).map((length) => (message: Message) => ({ ...message, method: "m".repeat(length) })),
  fc
    .integer({ min: 10, max: 1500 })
    .map((depth) => (message: Message) => ({ ...message, params: { name: ALLOWED.tool, arguments: { args: [ALLOWED.firstArg] }, deep: nested(depth) } })),
  fc.constantFrom("\ud800", "\udfff", "a\udc00b", "\ud83d").map((lone) => (message: Message) => withArg(message, lone)),
  fc.constantFrom("a\u0000b", "\u0000").map((nul) => (message: Message) => withArg(message, nul)),
);

const INSERTS = [[0x00], [0xff], [0x0d], [0xc3], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0x0a], [0x80, 0x80]];

const byteMutation: fc.Arbitrary<(line: Buffer) => Buffer> = fc.oneof(
  fc.nat().map((at) => (line: Buffer) => line.subarray(0, at % (line.length + 1))),
  fc.record({ at: fc.nat(), bytes: fc.constantFrom(...INSERTS) }).map(({ at, bytes }) => (line: Buffer) => {
    const cut = at % (line.length + 1);
    return Buffer.concat([line.subarray(0, cut), Buffer.from(bytes), line.subarray(cut)]);
  }),
  fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }).map(({ at, byte }) => (line: Buffer) => {
    const copy = Buffer.from(line);
    if (copy.length > 0) copy[at % copy.length] = byte;
    return copy;
  }),
  fc.nat().map((at) => (line: Buffer) => Buffer.concat([line.subarray(0, at % (line.length + 1)), line.subarray((at % (line.length + 1)) + 1)])),
  fc.constant((line: Buffer) => Buffer.concat([line, Buffer.from("\r")])),
);

/** A line of about `size` bytes: an allowed call whose argument fills it up. */
function hugeLine(message: Message, size: number): Buffer {
  const bare = Buffer.byteLength(JSON.stringify(withArg(message, "")));
  return Buffer.from(JSON.stringify(withArg(message, "x".repeat(Math.max(0, size - bare)))));
}

const idSpelling = fc.constantFrom("1.0", "1e0", "-0", "1E2", "12345678901234567890", "1e400", "0.5", '"\\u0061"');
const idSpellings = fc.oneof(
  idSpelling.map((spelling) => Buffer.from(`{"jsonrpc":"2.0","id":${spelling},"method":"ping"}`)),
  // A batch's elements: each id is read from its own text too.
  fc
    .array(
      fc.oneof(
        idSpelling,
        id.map((id) => JSON.stringify(id)),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((spellings) => Buffer.from(`[${spellings.map((spelling) => `{"jsonrpc":"2.0","id":${spelling},"method":"ping"}`).join(",")}]`)),
);

/** One stdin line (it may contain a newline of its own, splitting it in two). */
export function lineArbitrary(limit: number): fc.Arbitrary<Buffer> {
  const json = (message: Message): Buffer => Buffer.from(JSON.stringify(message));
  return fc.oneof(
    { weight: 3, arbitrary: baseMessage.map(json) },
    { weight: 4, arbitrary: fc.tuple(baseMessage, objectMutation).map(([message, mutate]) => json(mutate(message))) },
    { weight: 4, arbitrary: fc.tuple(baseMessage, byteMutation).map(([message, mutate]) => mutate(json(message))) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(baseMessage, fc.oneof(fc.integer({ min: limit - 40, max: limit + 40 }), fc.integer({ min: limit, max: limit * 8 })))
        .map(([message, size]) => hugeLine(message, size)),
    },
    fc.array(baseMessage, { maxLength: 4 }).map((batch) => Buffer.from(JSON.stringify(batch))),
    idSpellings,
    fc.jsonValue({ maxDepth: 3 }).map((value) => Buffer.from(JSON.stringify(value))),
    fc.string({ unit: "binary", maxLength: 60 }).map((text) => Buffer.from(text, "utf8")),
    fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes)),
  );
}
