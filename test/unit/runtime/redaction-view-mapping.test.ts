/**
 * Spans found in the normalised view are mapped back onto the text
 * (normalised-view.ts `originOf`). The map kept only each 4 Ki-unit run's
 * start, and overlapping spans (a periodic value printed over and over, a
 * value with its pieces) come back out of order, so nearly every span walked
 * from its run's start: 1 MB of `abab…` holding one NUL took 12 s for the
 * value `abababab`. Work is counted (every character read), not timed.
 */
import { describe, expect, test } from "vitest";
import { completed, createRedactor } from "../../../src/runtime/redaction.js";
import { normalisedView } from "../../../src/runtime/normalised-view.js";
import { readsOf } from "../../support/character-reads.js";

describe("mapping spans back from the normalised view", () => {
  test("overlapping spans of a periodic value cost a bounded number of reads per character, and still map back to where they stood", () => {
    const text = `\u0000${"ab".repeat(50_000)}`;
    const redactor = createRedactor([{ name: "P", value: "abababab" }]);
    const { reads, result } = readsOf(() => redactor.redact(text));
    expect(result).toBe("\u0000[redacted:P]");
    // Searching the text and its view reads each character a few times; a walk from each run's start read ~2,600.
    expect(reads / text.length).toBeLessThan(200);
    // Places asked out of order, as overlapping spans ask them, across removed characters and runs.
    const mixed = `x\u001b[31my${"\u0000z".repeat(5000)}\n    w${"\u200b".repeat(100)}v`;
    const view = completed(normalisedView(mixed));
    if (view === undefined) throw new Error("the text holds removed characters");
    for (const index of [view.text.length - 1, 0, 4000, 2, view.text.length - 2, 3999, 1, 4001]) expect(mixed[view.originOf(index)]).toBe(view.text[index]);
    for (let index = 0; index < view.text.length; index += 1) expect(mixed[view.originOf(index)]).toBe(view.text[index]);
  });
});
