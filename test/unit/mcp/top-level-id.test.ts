import { describe, expect, test } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { TopLevelIdScanner } from "../../../src/mcp/stdio/top-level-id.js";

/** Scans `text` cut at the given byte offsets. */
function scan(text: string, cuts: readonly number[] = []): ReturnType<TopLevelIdScanner["id"]> {
  const bytes = Buffer.from(text, "utf8");
  const scanner = new TopLevelIdScanner();
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    scanner.scan(bytes.subarray(start, Math.max(start, Math.min(cut, bytes.length))));
    start = Math.max(start, Math.min(cut, bytes.length));
  }
  scanner.scan(bytes.subarray(start));
  return scanner.id();
}

/** What JSON.parse says the readable top-level id is. */
function oracle(text: string): string | number | undefined {
  const value = JSON.parse(text) as unknown;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const id = (value as Record<string, unknown>).id;
  if (typeof id === "string") return id;
  // A number read without loss: finite, and not an integer past 2^53.
  return typeof id === "number" && Number.isFinite(id) && !(Number.isInteger(id) && !Number.isSafeInteger(id)) ? id : undefined;
}

const SEED = 7_031_129;

describe("TopLevelIdScanner", () => {
  test("gives no id whose bytes are not valid UTF-8 (decoded, they would read U+FFFD, an id never sent)", () => {
    const scanner = new TopLevelIdScanner();
    scanner.scan(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"ping","id":"a'), Buffer.from([0xc3])]));
    scanner.scan(Buffer.concat([Buffer.from([0x28]), Buffer.from('"}')]));
    expect(scanner.id()).toBeUndefined();
    const elsewhere = new TopLevelIdScanner();
    elsewhere.scan(Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff]), Buffer.from('","id":"a\uFFFD"}')]));
    expect(elsewhere.id()).toBe("a\uFFFD");
  });

  test.each([
    ['{"jsonrpc":"2.0","method":"x","params":{"id":9},"id":5}', 5],
    ['{"id":"abc","method":"x"}', "abc"],
    ['{ "id" : -12.5 }', -12.5],
    ['{"\\u0069d":"escaped key"}', "escaped key"],
    ['{"id":"a\\"b\\\\"}', 'a"b\\'],
    ['{"id":1,"id":2}', 2],
    ['{"id":"😀 ünïcode"}', "😀 ünïcode"],
    ['{"params":{"x":"}\\"{"},"id":3}', 3],
  ])("reads the top-level id of %s", (text, id) => {
    expect(scan(text)).toEqual(id);
    for (let cut = 0; cut <= Buffer.byteLength(text); cut += 1) expect(scan(text, [cut])).toEqual(id);
  });

  test.each([
    ['{"params":{"id":9}}', "a nested id only"],
    ['{"id":null}', "a null id"],
    ['{"id":{"a":1}}', "an object id"],
    ['{"id":[1]}', "an array id"],
    ['{"id":true}', "a boolean id"],
    ['{"id":5,"method":"x"', "a truncated object"],
    ['{"id":5} {"id":6}', "two values on one line"],
    ['[{"id":5}]', "an array"],
    ['"id"', "a string"],
    [`{"id":"${"x".repeat(600)}"}`, "an id longer than the scanner keeps"],
    ['{"id":1}}', "a stray closing brace"],
    ['{"id":9007199254740993}', "an integer past 2^53 (it would be read as 9007199254740992)"],
    ['{"id":1e400}', "a number past the double range"],
    ['{"id":1.00000000000000001}', "an integer written with a fraction past double precision (read as 1)"],
    ['{"id":1.0}', "an integer written with a fraction"],
    ['{ "id" : -12.5e1 }', "an integer written with an exponent (read as -125)"],
    ['{"id":-0}', "minus zero (written back as 0)"],
    ['{"id":1.10000000000000001}', "a fraction written past double precision (read as 1.1)"],
  ])("reads no id from %s (%s)", (text) => {
    expect(scan(text)).toBeUndefined();
  });

  prop(
    [
      fc.dictionary(
        fc.string({ maxLength: 8 }).filter((key) => key !== "id"),
        fc.jsonValue({ maxDepth: 3 }),
        { maxKeys: 5 },
      ),
      fc.option(fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(null)), {
        nil: undefined,
      }),
      fc.nat(),
      fc.array(fc.nat(), { maxLength: 6 }),
    ],
    { seed: SEED, numRuns: 400 },
  )("agrees with JSON.parse on any object, in any chunking", (fields, id, position, cuts) => {
    const entries: [string, unknown][] = Object.entries(fields);
    if (id !== undefined) entries.splice(position % (entries.length + 1), 0, ["id", id]);
    const text = JSON.stringify(Object.fromEntries(entries));
    const length = Buffer.byteLength(text);
    expect(
      scan(
        text,
        cuts.map((cut) => cut % (length + 1)),
      ),
    ).toEqual(oracle(text));
  });
});
