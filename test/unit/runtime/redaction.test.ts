import { describe, expect, test } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { redactOutput, trimToBytes } from "../../../src/runtime/redact-output.js";
import { createRedactor, CUT_TAIL_MARKER, MIN_REDACTED_LENGTH, NO_REDACTION } from "../../../src/runtime/redaction.js";
import { SLICE_UNITS } from "../../../src/runtime/spelling-matcher.js";

const CANARY = "c4n4ry-S3cr3t/with+odd=chars é";
const redactor = createRedactor([{ name: "API_TOKEN", value: CANARY }]);
const MARK = "[redacted:API_TOKEN]";

describe("createRedactor", () => {
  test("masks the value as is, JSON-escaped and URL-encoded", () => {
    for (const spelling of [
      CANARY,
      JSON.stringify(CANARY).slice(1, -1),
      JSON.stringify(CANARY).slice(1, -1).replace("é", "\\u00e9"),
      encodeURIComponent(CANARY),
      encodeURIComponent(CANARY).replace(/%[0-9A-F]{2}/gu, (escape) => escape.toLowerCase()),
    ]) {
      const out = redactor.redact(`before ${spelling} after`);
      expect(out, spelling).toBe(`before ${MARK} after`);
    }
  });

  test("masks the base64 spelling at every alignment inside a longer blob, in both alphabets", () => {
    for (const lead of ["", "x", "xy", "xyz"]) {
      for (const trail of ["", "!", "!!"]) {
        const blob = Buffer.from(`${lead}${CANARY}${trail}`, "utf8");
        for (const encoded of [blob.toString("base64"), blob.toString("base64url")]) {
          const out = redactor.redact(`data: ${encoded}\n`);
          expect(out, `${lead}|${trail}`).toContain(MARK);
          // What is left of the blob decodes to no more than a few bytes of the value.
          expect(out.replace(MARK, "").length, `${lead}|${trail}`).toBeLessThan(`data: ${encoded}\n`.length - 20);
        }
      }
    }
  });

  test("leaves values under the minimum alone, and says nothing when there is nothing to do", () => {
    const short = createRedactor([{ name: "SHORT", value: "x".repeat(MIN_REDACTED_LENGTH - 1) }]);
    expect(short.active).toBe(false);
    expect(short.redact("xxxxxxx")).toBe("xxxxxxx");
    expect(NO_REDACTION.redact(CANARY)).toBe(CANARY);
    expect(createRedactor([{ name: "EIGHT", value: "12345678" }]).redact("a12345678b")).toBe("a[redacted:EIGHT]b");
  });

  test("overlapping and repeated occurrences leave nothing of either value", () => {
    const two = createRedactor([
      { name: "A", value: "aaaaaaaaaa" },
      { name: "B", value: "aaaabbbbbbbb" },
    ]);
    const out = two.redact("xaaaaaaaaaaaaaabbbbbbbby aaaaaaaaaaaaaaaaaaaaaa");
    expect(out).not.toMatch(/a{3}|b{3}/u);
  });

  test("a cut text hides the start of a secret at its end, an uncut one does not", () => {
    const head = "x".repeat(1000);
    const out = redactor.redact(`${head}value: ${CANARY.slice(0, 12)}`, { cut: true });
    expect(out).not.toContain(CANARY.slice(0, 4));
    expect(out.endsWith(CUT_TAIL_MARKER)).toBe(true);
    // Only a tail goes: what precedes it by more than the longest spelling stays.
    expect(out.startsWith("x".repeat(500))).toBe(true);
    // (11 characters: less than one of the blocks a partial print is masked by, partial-values.ts.)
    expect(redactor.redact(`value: ${CANARY.slice(0, 11)}`)).toBe(`value: ${CANARY.slice(0, 11)}`);
  });

  describe("a cut tail says nothing about the values (no prefix oracle)", () => {
    // Two values of one length that differ in every character: a child cut right after text the agent chose
    // (an object it wrote, a log it fills, its own argument echoed) must redact alike under either, or the
    // marker tells whether a value starts with the guess, one character per call.
    const first = createRedactor([{ name: "TOKEN", value: "Sx9kQ2mZ7pL4vB" }]);
    const second = createRedactor([{ name: "TOKEN", value: "Qa1jR3nY8oK5wC" }]);
    const head = "log line\n".repeat(200);

    test.each(["S", "Sx", "Sx9kQ2", "Sx9kQ2mZ7pL4v", "Q", "z", "S\n", "S\u0000x\u0000", "Sx\u001b[31m9k"])("guess %j", (guess) => {
      for (const text of [`${head}${guess}`, guess]) {
        expect(first.redact(text, { cut: true })).toBe(second.redact(text, { cut: true }));
        expect(first.redact(text, { cut: true }).endsWith(CUT_TAIL_MARKER)).toBe(true);
      }
    });

    test("nor does a guess split across the two streams", async () => {
      for (const [out, err] of [
        ["S", "x9k"],
        ["Q", "a1j"],
        ["Sx9", ""],
      ] as const) {
        const stdout = `${head}${out}`;
        const stderr = `${head}${err}`;
        const streams = { stdout, stderr, interleaving: [stdout.length - out.length, stderr.length - err.length, out.length, err.length] };
        const options = { cut: true, maxBytes: 1 << 20 };
        expect(await redactOutput(streams, first, options)).toEqual(await redactOutput(streams, second, options));
      }
    });

    test("a cut text that is exactly a value's first piece reads as any other cut tail", () => {
      // fast-check's counterexample (seed 1795616627): the piece's span and the tail's covered the same characters,
      // and the piece's marker won, so the marker said the text was the value's first twelve characters.
      for (const value of ["aaaaaaaaaBWaaaaaaaaaaaaaaa", "x8Kq2LmZp4Rt7VbN3cJd9FgHs1wQ"]) {
        for (const length of [12, 24]) {
          const text = value.slice(0, length);
          expect(createRedactor([{ name: "V", value }]).redact(text, { cut: true })).toBe(CUT_TAIL_MARKER);
          expect(createRedactor([{ name: "V", value: "b".repeat(value.length) }]).redact(text, { cut: true })).toBe(CUT_TAIL_MARKER);
        }
      }
    });

    const alnum = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    prop([
      fc.array(alnum, { minLength: 8, maxLength: 40 }),
      fc.array(alnum, { minLength: 40, maxLength: 40 }),
      fc.string(),
      fc.nat(),
      fc.constantFrom("", "\n", "\u0000", "\u200b"),
    ])("property: the redaction of a cut text holding no whole value does not depend on the values' characters", (value, other, before, at, after) => {
      const a = value.join("");
      const b = other.slice(0, a.length).join("");
      const guess = a.slice(0, 1 + (at % (a.length - 1)));
      const text = `${before}${guess}${after}`;
      const ra = createRedactor([{ name: "V", value: a }]);
      const rb = createRedactor([{ name: "V", value: b }]);
      expect(ra.redact(text, { cut: true })).toBe(rb.redact(text, { cut: true }));
    });
  });

  prop([fc.string({ minLength: 8, maxLength: 40 }).filter((value) => value.trim().length >= 8), fc.string(), fc.string()])(
    "no spelling of a value survives",
    (value, before, after) => {
      const one = createRedactor([{ name: "V", value }]);
      const text = `${before}${value}${after}|${JSON.stringify(value)}|${Buffer.from(before + value).toString("base64")}`;
      const out = one.redact(text);
      expect(out.includes(value)).toBe(false);
      expect(out.includes(JSON.stringify(value).slice(1, -1))).toBe(false);
    },
  );
});

describe("redactOutput", () => {
  test("keeps the redacted output within the cap without ending in half a marker", async () => {
    const long = createRedactor([{ name: "A_VERY_LONG_VARIABLE_NAME_FOR_A_SHORT_VALUE", value: "s3cr3t-9" }]);
    const stdout = "s3cr3t-9 ".repeat(10);
    const out = await redactOutput({ stdout, stderr: "" }, long, { cut: false, maxBytes: stdout.length });
    expect(Buffer.byteLength(out.stdout)).toBeLessThanOrEqual(stdout.length);
    expect(out.trimmed).toBe(true);
    expect(out.stdout).not.toContain("s3cr3t");
    expect(out.stdout.endsWith("] ") || out.stdout.endsWith("]")).toBe(true);
  });

  test("a large output is searched in slices: the event loop turns between them, and a small redaction started later ends first", async () => {
    const value = "Sup3rSecretValue-0123456789";
    const one = createRedactor([{ name: "API_TOKEN", value }]);
    const big = `${"Sup3rSecretValue-012345678X ".repeat(150_000)}${value}`;
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const order: string[] = [];
    const large = redactOutput({ stdout: big, stderr: "" }, one, { cut: false, maxBytes: 8 << 20 }).then((out) => (order.push("large"), out));
    const small = redactOutput({ stdout: `x ${value}`, stderr: "" }, one, { cut: false, maxBytes: 4096 }).then((out) => (order.push("small"), out));
    const [largeOut, smallOut] = await Promise.all([large, small]);
    counting = false;
    expect(order).toEqual(["small", "large"]);
    expect(smallOut.stdout).toBe(`x ${MARK}`);
    expect(largeOut.stdout.endsWith("X [redacted:API_TOKEN]")).toBe(true);
    // One turn at least per slice of SLICE_UNITS characters: no turn waits for more than a slice of work.
    expect(turns).toBeGreaterThanOrEqual(Math.floor(big.length / SLICE_UNITS));
  });

  test("trimToBytes never splits a character or a marker", () => {
    expect(trimToBytes("ab[redacted:X]cd", 8)).toBe("ab");
    expect(trimToBytes("aé", 2)).toBe("a");
    expect(trimToBytes("abc", 10)).toBe("abc");
  });
});

describe("the cut tail's size says only a coarse size class", () => {
  const text = "x".repeat(2000); // output the agent chose, cut at the cap right here

  test("two values of one length that differ only in one character redact a cut text alike", () => {
    // The existing property test draws values from [A-Za-z0-9] only; one non-ASCII character moves the mask.
    const ascii = createRedactor([{ name: "TOKEN", value: "Sx9kQ2mZ7pL4vB" }]).redact(text, { cut: true });
    const accented = createRedactor([{ name: "TOKEN", value: "Sx9kQ2mZ7pL4vé" }]).redact(text, { cut: true });
    // The mask was the longest spelling's length: 6 units per ASCII character, 8 for é, 12 for €, 16 for an emoji.
    expect(accented.indexOf(CUT_TAIL_MARKER)).toBe(ascii.indexOf(CUT_TAIL_MARKER));
  });
});

describe("a large value does not swallow every cut output", () => {
  test("a 50 KB value (a CA bundle, a kubeconfig in .env) keeps the head of a 256 KiB cut output", () => {
    const redactor = createRedactor([{ name: "CA_BUNDLE", value: "A".repeat(50_000) }]);
    const out = redactor.redact("y".repeat(256 * 1024), { cut: true });
    // Uncapped, the mask was 6 × 50 000 = 300 000 characters: the whole output.
    expect(out.startsWith("y".repeat(1024))).toBe(true);
  });
});
