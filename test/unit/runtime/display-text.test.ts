/**
 * `hasUnseen`: the one test of whether text shown to a human holds characters
 * that do not show as themselves, for every class the approval page must not
 * let into a grant or a rule (red team F2), and not for visible text, accented
 * or not. `unseenEscapes` writes exactly those characters as `\u{…}`.
 */
import { describe, expect, test } from "vitest";
import { hasUnseen, unseenEscapes } from "../../../src/runtime/display-text.js";

/** One or more examples of each class of character that does not show as itself on screen. */
const UNSEEN_CLASSES: Readonly<Record<string, readonly string[]>> = {
  "zero-width characters": ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"],
  "bidi marks, embeddings, overrides and isolates": [
    "\u200e",
    "\u200f",
    "\u061c",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
  ],
  "other format (Cf) characters": ["\u00ad", "\u2061", "\u2064", "\u180e", "\ufff9", "\u{1d173}"],
  "variation selectors": ["\ufe00", "\ufe0f", "\u{e0100}", "\u{e01ef}", "\u180b"],
  "tag characters": ["\u{e0001}", "\u{e0020}", "\u{e0041}", "\u{e007f}"],
  "C0 controls and DEL": ["\u0000", "\u0001", "\t", "\n", "\r", "\u001b", "\u007f"],
  "C1 controls": ["\u0080", "\u0085", "\u009b", "\u009f"],
  "unusual spaces and separators": ["\u00a0", "\u1680", "\u2000", "\u2007", "\u200a", "\u202f", "\u205f", "\u3000", "\u2028", "\u2029"],
  "other default-ignorable characters (fillers, joiners)": ["\u034f", "\u115f", "\u1160", "\u3164", "\uffa0", "\u17b4"],
  "blank, private-use, unassigned and lone-surrogate code points": ["\u2800", "\ue000", "\u{f0000}", "\u{10ffff}", "\ud800", "\udc00"],
};

describe("hasUnseen", () => {
  for (const [name, characters] of Object.entries(UNSEEN_CLASSES)) {
    test(`finds ${name}, alone, inside a word and at its end`, () => {
      for (const character of characters) {
        const code = (character.codePointAt(0) ?? 0).toString(16);
        for (const text of [character, `pods${character}x`, `kube-system${character}`])
          expect(hasUnseen(text), `U+${code} in ${JSON.stringify(text)}`).toBe(true);
      }
    });
  }

  test("passes visible text: printable ASCII with plain spaces, accented letters, other scripts, symbols, an emoji without a selector", () => {
    for (const text of ["get pods -n kube-system", "--query=Reservations[].Instances[]", "café", "pod\u0430", "東京", "naïve résumé", "→ ✓", "\u{1f680}", ""]) {
      expect(hasUnseen(text), JSON.stringify(text)).toBe(false);
    }
  });
});

describe("unseenEscapes", () => {
  test("writes every character hasUnseen finds as \\u{…} and leaves visible text, ASCII or not, as it is", () => {
    for (const character of Object.values(UNSEEN_CLASSES).flat()) {
      const escaped = unseenEscapes(`a${character}…`);
      expect(escaped).toBe(`a\\u{${(character.codePointAt(0) ?? 0).toString(16)}}…`);
      expect(hasUnseen(escaped)).toBe(false);
    }
    expect(unseenEscapes('accepts "get p\u043eds" — café')).toBe('accepts "get p\u043eds" — café');
  });
});
