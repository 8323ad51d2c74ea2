/**
 * `originOf` (normalised-view.ts) answers from the last answer, from places
 * kept every MARK_UNITS text units, or from a run's start, whichever is
 * nearest; and the OSC terminator search goes on from the last one. Whatever
 * the order places are asked in, the answer must be the one a walk from the
 * view's first character gives: asked in order, each answer is one step from
 * the last. Random texts of the kinds the view removes, across several 4 Ki
 * runs, OSC strings ended and not, ended past MAX_OSC, and line breaks whose
 * indentation crosses a run's end.
 */
import { expect } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { normalisedView } from "../../../src/runtime/normalised-view.js";
import { completed } from "../../../src/runtime/redaction.js";

const ESC = "\u001b";
const PIECES = [
  "a",
  "b",
  "x",
  " ",
  "\n",
  "\r\n",
  "\n    ",
  "\u0000",
  "\u0007",
  ESC,
  `${ESC}]`,
  `${ESC}\\`,
  `${ESC}[`,
  `${ESC}[31m`,
  `${ESC}]8;;https://x\u0007`,
  `${ESC}(B`,
  "\u009b",
  "\u009b1;2m",
  "\u200b",
  "\u00a0",
  "\u00ad",
  "\ufeff",
  "\u007f",
  "\t",
];
const piece = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }).map((length) => "x".repeat(length)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }).map((length) => " ".repeat(length)) },
);

prop([fc.array(piece, { minLength: 1, maxLength: 3000 }), fc.array(fc.nat(), { minLength: 1, maxLength: 400 })], { numRuns: 60 })(
  "places asked in any order map to where a walk in order puts them",
  (pieces, asked) => {
    const text = `\u0000${pieces.join("")}`;
    const inOrder = completed(normalisedView(text));
    const anyOrder = completed(normalisedView(text));
    if (inOrder === undefined || anyOrder === undefined) throw new Error("the text holds a NUL");
    expect(anyOrder.text).toBe(inOrder.text);
    const length = inOrder.text.length;
    if (length === 0) return;
    const origins: number[] = [];
    for (let index = 0; index < length; index += 1) {
      const origin = inOrder.originOf(index);
      expect(text[origin]).toBe(inOrder.text[index]);
      if (index > 0) expect(origin).toBeGreaterThan(origins[index - 1] as number);
      origins.push(origin);
    }
    for (const place of asked) {
      const index = place % length;
      expect(anyOrder.originOf(index)).toBe(origins[index]);
      // A span's end is asked right after its start, and overlapping spans go back: both directions.
      const back = Math.max(0, index - (place % 97));
      expect(anyOrder.originOf(back)).toBe(origins[back]);
    }
  },
);
