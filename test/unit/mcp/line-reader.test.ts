import { describe, expect, test } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { BoundedLineReader } from "../../../src/mcp/stdio/line-reader.js";

type Event = { line: string } | { oversized: number; id: string | number | undefined };

/** Feeds `input` cut at `cuts` into a reader with `limit`; returns what it reported. */
function read(input: Buffer, limit: number, cuts: readonly number[] = []): Event[] {
  const events: Event[] = [];
  const reader = new BoundedLineReader(limit, {
    line: (bytes) => events.push({ line: bytes.toString("latin1") }),
    oversized: (id, bytes) => events.push({ oversized: bytes, id }),
    accepting: () => true,
  });
  let start = 0;
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= start || cut >= input.length) continue;
    reader.push(input.subarray(start, cut));
    start = cut;
  }
  reader.push(input.subarray(start));
  return events;
}

describe("BoundedLineReader", () => {
  test("splits on LF only and keeps CR, NUL and invalid UTF-8 bytes for the caller", () => {
    const input = Buffer.from([0x61, 0x0d, 0x0a, 0x00, 0xff, 0x0a, 0x0a, 0x62]);
    expect(read(input, 16)).toEqual([{ line: "a\r" }, { line: "\u0000\u00ff" }, { line: "" }]);
  });

  test("a line of exactly the limit is read; one byte more is oversized, and reading goes on", () => {
    const input = Buffer.from(`${"a".repeat(8)}\n${"b".repeat(9)}\nok\n`);
    expect(read(input, 8)).toEqual([{ line: "aaaaaaaa" }, { oversized: 9, id: undefined }, { line: "ok" }]);
  });

  test("an oversized line reports its top-level id, wherever the chunks fall", () => {
    const big = JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { pad: "x".repeat(5000), id: 1 }, id: 42 });
    const input = Buffer.from(`${big}\n{"id":1}\n`);
    for (const cuts of [[], [1], [100, 4000], [big.length - 3, big.length]]) {
      expect(read(input, 1024, cuts)).toEqual([{ oversized: big.length, id: 42 }, { line: '{"id":1}' }]);
    }
  });

  test("a multi-byte character split across chunks arrives whole", () => {
    const input = Buffer.from('{"a":"é😀"}\n', "utf8");
    for (let cut = 1; cut < input.length; cut += 1) {
      const [event] = read(input, 64, [cut]);
      expect(Buffer.from((event as { line: string }).line, "latin1").toString("utf8")).toBe('{"a":"é😀"}');
    }
  });

  test("an oversized line that never ends is never reported", () => {
    const reader = new BoundedLineReader(4, { line: () => expect.fail("no line"), oversized: () => expect.fail("not ended"), accepting: () => true });
    const chunk = Buffer.alloc(65_536, 0x78);
    for (let index = 0; index < 200; index += 1) reader.push(chunk);
  });

  test("reads no line the sink does not accept: the rest of the chunk waits, unread, for resume(), before any later chunk", () => {
    const lines: string[] = [];
    let room = 2;
    const reader = new BoundedLineReader(64, {
      line: (bytes) => {
        lines.push(bytes.toString("latin1"));
        room -= 1;
      },
      oversized: () => expect.fail("none is oversized"),
      accepting: () => room > 0,
    });
    reader.push(Buffer.from("a\nb\nc\nd"));
    expect(lines).toEqual(["a", "b"]);
    expect(reader.hasUnread()).toBe(true);
    reader.push(Buffer.from("\ne\n"));
    expect(lines).toEqual(["a", "b"]);
    room = 2;
    reader.resume();
    expect(lines).toEqual(["a", "b", "c", "d"]);
    room = 10;
    reader.resume();
    expect(lines).toEqual(["a", "b", "c", "d", "e"]);
    expect(reader.hasUnread()).toBe(false);
  });

  prop([fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 1, max: 32 })], {
    seed: 5_150_001,
    numRuns: 300,
  })("reports every complete line once, in order, as kept or oversized by its length", (raw, cuts, limit) => {
    const lines = raw.map((bytes) => Buffer.from(bytes.filter((byte) => byte !== 0x0a)));
    const input = Buffer.concat(lines.flatMap((line) => [line, Buffer.from("\n")]));
    const expected = lines.map((line): Event => (line.length <= limit ? { line: line.toString("latin1") } : { oversized: line.length, id: undefined }));
    const events = read(
      input,
      limit,
      cuts.map((cut) => cut % (input.length + 1)),
    );
    expect(events.map((event) => ("line" in event ? event : { oversized: event.oversized, id: undefined }))).toEqual(expected);
  });
});
