/**
 * The redaction search is linear by construction, and this counts the work
 * instead of timing it (a CPU-time ratio failed CI once under load): the DFA
 * reads each character once, the Pike scan re-reads only the regions where a
 * spelling ended (each character about twice at most), and the DFA's states
 * come from a bounded set, so a text eight times longer builds no more of them.
 * Texts are made to keep many spellings alive at once (quotes, backslashes).
 */
import { afterEach, describe, expect, test, vi } from "vitest";

const pike = vi.hoisted(() => ({ characters: 0 }));

vi.mock("../../../src/runtime/spelling-matcher.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../../src/runtime/spelling-matcher.js")>();
  return {
    ...actual,
    // Counts the characters every Pike scan is handed, whoever calls it.
    *findSpellings(...args: Parameters<typeof actual.findSpellings>) {
      const [, , range] = args;
      pike.characters += range.to - range.from;
      return yield* actual.findSpellings(...args);
    },
  };
});

const { createRedactor } = await import("../../../src/runtime/redaction.js");
const { SpellingAutomaton } = await import("../../../src/runtime/spelling-automaton.js");

interface Work {
  /** DFA transitions read (one table look-up each once warm). */
  steps: number;
  /** DFA states built (each costs work bounded by the patterns' size). */
  built: number;
  /** Characters handed to the Pike scan. */
  rescanned: number;
}

/** The work one fresh redactor does on `text`, counted. */
function workOf(value: string, text: string): Work {
  const next = vi.spyOn(SpellingAutomaton.prototype, "next");
  // `build` is private to the class; the spy only counts its calls.
  const build = vi.spyOn(SpellingAutomaton.prototype as unknown as { build: () => number }, "build");
  pike.characters = 0;
  createRedactor([{ name: "V", value }]).redact(text);
  const work = { steps: next.mock.calls.length, built: build.mock.calls.length, rescanned: pike.characters };
  vi.restoreAllMocks();
  return work;
}

afterEach(() => {
  vi.restoreAllMocks();
});

const CASES: ReadonlyArray<{ name: string; value: string; unit: string }> = [
  { name: "quotes that never finish the value", value: "''''''''''''''''x", unit: "'" },
  { name: "quotes that finish it every 17 characters", value: "''''''''''''''''x", unit: "''''''''''''''''x" },
  { name: "backslashes before a value of escapes", value: "\\\\\\\\\\\\\\\\\\y", unit: "\\\\\\\\\\\\\\\\\\\\y\\" },
  { name: "JSON and URL escapes of a quoted value", value: "a'b\"c&d<e>f", unit: "a\\u0027b\\\"c%26d&#60;e>f'" },
];

describe("redaction work is proportional to the text's length", () => {
  test.each(CASES)("$name: each character read once by the DFA, at most twice more by the Pike scan, no more states for a longer text", ({ value, unit }) => {
    const small = unit.repeat(Math.ceil(20_000 / unit.length));
    const large = small.repeat(8);
    const few = workOf(value, small);
    const many = workOf(value, large);
    for (const [text, work] of [
      [small, few],
      [large, many],
    ] as const) {
      // The text and its normalised view (at most as long): one DFA step per character of each.
      expect(work.steps).toBeLessThanOrEqual(2 * text.length);
      expect(work.rescanned).toBeLessThanOrEqual(2 * 2 * text.length);
    }
    // A quadratic search would re-read ~64× the small text's work; states are a bounded set.
    expect(many.steps).toBeLessThanOrEqual(8 * few.steps + 64);
    // (Regions end at four longest spellings even where the DFA is never idle, and the next one starts one
    // longest spelling back: where a text of eight times the length cuts them differently, a few more re-reads.)
    expect(many.rescanned).toBeLessThanOrEqual(8 * 1.25 * few.rescanned + 64);
    expect(many.built).toBeLessThanOrEqual(few.built);
    expect(few.steps).toBeGreaterThan(0);
  });
});

describe("many values of the text's own alphabet (base64 keys in base64 output)", () => {
  // A fixed pseudo-random base64 string: the DFA, with a hundred values under way, is never idle again.
  const base64 = (length: number, seed: number): string => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let state = seed;
    let text = "";
    for (let i = 0; i < length; i += 1) {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      // The high bits: an LCG's low six bits repeat every 64 draws (every value would be in the text).
      text += alphabet[(state >>> 16) % 64];
    }
    return text;
  };

  test("a value found at the start does not hand the rest of the text to the Pike scan, and every character each advances only the values it can start", () => {
    const values = Array.from({ length: 100 }, (_, i) => base64(64, i + 1));
    const text = `${values[0] ?? ""}${base64(200_000, 999)}`;
    pike.characters = 0;
    const out = createRedactor(values.map((value, i) => ({ name: `V${i}`, value }))).redact(text);
    expect(out.startsWith("[redacted:V0]")).toBe(true);
    // Until the DFA is idle again (never, here) the region of the first match was the whole text, twice (text and view).
    expect(pike.characters).toBeLessThan(text.length / 8);
  });
});
