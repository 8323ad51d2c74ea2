/**
 * A value with a long periodic run (`abab…`, one character repeated, a run of
 * backslashes) lets output that repeats the run keep one search thread per
 * period alive, and every character of such output advanced them all: the
 * work grew with the text's length times the run's, so a child printing
 * `abab…` could hold the server's CPU for minutes (a 4 KiB value, 1 MB of
 * output). The search keeps the threads of at most MAX_STARTS starts and masks what a
 * dropped one could have spelled. Work is counted (Map look-ups: every
 * thread step and DFA state built makes some), not timed.
 */
import { describe, expect, test } from "vitest";
import { createRedactor } from "../../../src/runtime/redaction.js";
import { completed } from "../../../src/runtime/redaction.js";
import { compileSpellings, findSpellings, OVERLAPPING_MARKER, spellingSet, type Span } from "../../../src/runtime/spelling-matcher.js";

/** The Map look-ups one fresh redactor makes redacting `text`, and what it returns. */
function lookUpsOf(value: string, text: string): { readonly lookUps: number; readonly redacted: string } {
  const redactor = createRedactor([{ name: "V", value }]);
  const get = Map.prototype.get;
  let lookUps = 0;
  Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
    lookUps += 1;
    return get.call(this, key);
  };
  try {
    return { redacted: redactor.redact(text), lookUps };
  } finally {
    Map.prototype.get = get;
  }
}

describe("a value with a long periodic run", () => {
  test("output repeating the run costs work proportional to its length, not to its length times the run's", () => {
    const text = "ab".repeat(8192);
    const short = lookUpsOf("ab".repeat(128), text);
    const long = lookUpsOf("ab".repeat(2048), text);
    // Without the bound, the value sixteen times as long costs about sixteen times the work on the same text.
    expect(long.lookUps).toBeLessThanOrEqual(2 * short.lookUps);
    expect(long.lookUps / text.length).toBeLessThan(1024);
    // The output is the value over and over: nothing of it stays in clear.
    expect(long.redacted).not.toMatch(/abab/u);
    expect(short.redacted).not.toMatch(/abab/u);
  });

  test("text the dropped threads could have spelled is masked, and the text past their reach is kept", () => {
    const value = `${"a".repeat(300)}Z`;
    const redactor = createRedactor([{ name: "V", value }]);
    // Past the longest spelling of the value from the last dropped start, nothing can be part of one.
    const after = ".".repeat(redactor.reach);
    const out = redactor.redact(`${"a".repeat(2000)}${value}${after}tail is kept`);
    expect(out).toContain(OVERLAPPING_MARKER);
    expect(out).not.toContain("Z");
    expect(out).not.toContain("a".repeat(300));
    expect(out.endsWith(".tail is kept")).toBe(true);
    // A value with a short run (nine backslashes) never meets the bound, however many the output holds.
    const control = createRedactor([{ name: "V", value: "\\\\\\\\\\\\\\\\\\y" }]).redact("\\".repeat(20_000));
    expect(control).not.toContain(OVERLAPPING_MARKER);
  });

  test("a spelling begun by a dropped thread counts as still under way where the scan stops (a cut is masked from its start)", () => {
    // openAtCut (redaction.ts) masks a cut text from where the earliest spelling still under way began; a
    // thread dropped past MAX_STARTS is no live thread, and was not counted: the cut kept its start in clear.
    const periodic = `${"ab".repeat(150)}Z`;
    const long = `ab${"Q7x9Lm2Pz4Rt8KwVb3Nc6Hd1Jg5SyE0".repeat(4)}`;
    const set = spellingSet([compileSpellings(periodic, "[P]"), compileSpellings(long, "[L]")]);
    const flood = "ab".repeat(100);
    // The long value begins at the flood's end, while a hundred threads of the periodic one are alive.
    const text = `${flood}${long.slice(0, 40)}`;
    const spans: Span[] = [];
    const underWay = completed(findSpellings(text, set, { from: 0, to: text.length }, spans));
    expect(spans.some((span) => span.marker === OVERLAPPING_MARKER && span.start <= flood.length)).toBe(true);
    expect(underWay).toBeLessThanOrEqual(flood.length);
  });

  test("where a dropped thread's mask ends says the longest value's size class only, not its length", () => {
    // The cut tail is rounded up for this reason (redaction.ts cutTailLength): a mask that ends exactly the
    // longest spelling after a start the output chose would tell the longest value's length, and whether it
    // holds characters with longer escapes, to anyone who can make threads be dropped.
    const decoy = { name: "P", value: `${"ab".repeat(100)}Z` };
    const text = `${"ab".repeat(1000)}${".".repeat(20_000)}`;
    const masked = (other: string): string => createRedactor([decoy, { name: "O", value: other }]).redact(text);
    const base = "Xk9fP2qLmZ7vR4tW8yB3nC6dH1jG5sA0eU".repeat(15);
    // Two longest values of different lengths (and one with a character whose escapes are longer), same class.
    expect(masked(`${base}ab`)).toBe(masked(base.slice(0, -3)));
    expect(masked(`${base.slice(0, -1)}é`)).toBe(masked(base.slice(0, -3)));
    expect(masked(base)).toContain(OVERLAPPING_MARKER);
  });
});
