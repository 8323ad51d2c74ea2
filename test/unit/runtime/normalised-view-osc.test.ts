/**
 * OSC strings (`ESC ] … BEL` or `ESC \`) are removed whole from the
 * normalised view when they end within MAX_OSC characters, else only their
 * ESC. Output full of OSC introducers that never end started a search of
 * MAX_OSC characters at every one of them: ~2,000 reads per character,
 * 256 KiB of `ESC ]` took 1.6 s of redaction. Work is counted (characters
 * read), not timed.
 */
import { describe, expect, test } from "vitest";
import { normalisedView } from "../../../src/runtime/normalised-view.js";
import { completed } from "../../../src/runtime/redaction.js";
import { readsOf } from "../../support/character-reads.js";

const ESC = "\u001b";
const BEL = "\u0007";

/** The view's text and how many characters of any string building it read. */
function viewOf(text: string): { readonly view: string | undefined; readonly reads: number } {
  const { result, reads } = readsOf(() => completed(normalisedView(text))?.text);
  return { view: result, reads };
}

describe("OSC strings in the normalised view", () => {
  test("introducers that never end cost a bounded number of reads per character, and OSC strings still end where they end", () => {
    const text = `${ESC}]`.repeat(50_000);
    const { view, reads } = viewOf(text);
    expect(view).toBe("]".repeat(50_000));
    expect(reads / text.length).toBeLessThan(20);
    // Ended within the bound: removed whole, after unended introducers too; past it: the ESC alone.
    expect(viewOf(`a${ESC}]8;;https://x${BEL}b${ESC}]0;t${ESC}\\c`).view).toBe("abc");
    expect(viewOf(`${ESC}]${ESC}]${ESC}]x${BEL}z`).view).toBe("z");
    expect(viewOf(`a${ESC}]${"x".repeat(5000)}${BEL}b`).view).toBe(`a]${"x".repeat(5000)}b`);
    expect(viewOf(`${`${ESC}]`.repeat(3000)}${BEL}z`).view).toBe(`${"]".repeat(952)}z`);
  });
});
