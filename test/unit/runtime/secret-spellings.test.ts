/**
 * Redaction of a value as other encoders print it (red-team F8): Go's
 * encoding/json (`\u0026 \u003c \u003e`), upper-case `\u00E9`, Python's
 * `quote` (`/` kept, `%21 %2A %27`) and `ascii()`, YAML single quotes (`''`),
 * POSIX shell quoting (`'\''`), HTML entities, C-style UTF-8 bytes, hex. For random
 * values full of the characters these encoders treat specially, no encoding
 * survives, wherever it sits in the text.
 */
import { describe, expect, test } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { propertyRuns } from "../../support/property-runs.js";
import { completed, createRedactor, CUT_TAIL_MARKER, replaceSpans, type Span } from "../../../src/runtime/redaction.js";
import { characterSpellings } from "../../../src/runtime/secret-forms.js";
import { SpellingAutomaton } from "../../../src/runtime/spelling-automaton.js";
import { compileSpellings, findSpellings, spellingSet } from "../../../src/runtime/spelling-matcher.js";
import { searchSpellings } from "../../../src/runtime/spelling-search.js";

const hex = (value: number, width: number): string => value.toString(16).padStart(width, "0");

const goJson = (v: string): string => JSON.stringify(v).replace(/[<>&\u2028\u2029]/gu, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
const jsonAscii = (upper: boolean) => (v: string) =>
  JSON.stringify(v).replace(/[\u007f-\uffff]/gu, (c) => {
    const escape = hex(c.charCodeAt(0), 4);
    return `\\u${upper ? escape.toUpperCase() : escape}`;
  });
const pyQuote = (v: string): string =>
  encodeURIComponent(v)
    .replace(/%2F/gu, "/")
    .replace(/[!'()*]/gu, (c) => `%${hex(c.charCodeAt(0), 2).toUpperCase()}`);
const formEncode = (v: string): string => encodeURIComponent(v).replaceAll("%20", "+");
const lowerUrl = (v: string): string => encodeURIComponent(v).replace(/%[0-9A-F]{2}/gu, (e) => e.toLowerCase());
const yamlSingle = (v: string): string => `'${v.replaceAll("'", "''")}'`;
const shellSingle = (v: string): string => `'${v.replaceAll("'", `'\\''`)}'`;
const html = (v: string): string => v.replace(/[&<>"']/gu, (c) => `&#${c.charCodeAt(0)};`);
const cBytes = (v: string): string => [...Buffer.from(v, "utf8")].map((b) => (b < 0x80 ? String.fromCharCode(b) : `\\x${hex(b, 2)}`)).join("");
const pyAscii = (v: string): string =>
  [...v]
    .map((c) => {
      const code = c.codePointAt(0) ?? 0;
      if (c === "\\" || c === "'") return `\\${c}`;
      if (c === "\n") return "\\n";
      if (code < 0x20 || (code >= 0x7f && code < 0x100)) return `\\x${hex(code, 2)}`;
      if (code > 0xffff) return `\\U${hex(code, 8)}`;
      return code > 0xff ? `\\u${hex(code, 4)}` : c;
    })
    .join("");

const ENCODERS: Record<string, (v: string) => string> = {
  "JSON.stringify": JSON.stringify,
  "Go encoding/json": goJson,
  "JSON, non-ASCII as lower-case \\u": jsonAscii(false),
  "JSON, non-ASCII as upper-case \\u": jsonAscii(true),
  encodeURIComponent,
  "URL, lower-case hex": lowerUrl,
  "form (+ for space)": formEncode,
  "Python quote": pyQuote,
  "Python ascii()": pyAscii,
  "YAML single-quoted": yamlSingle,
  "shell single-quoted": shellSingle,
  "HTML entities": html,
  "C-style UTF-8 bytes": cBytes,
  "hex of the UTF-8 bytes": (v) => Buffer.from(v, "utf8").toString("hex"),
  "upper-case hex": (v) => Buffer.from(v, "utf8").toString("hex").toUpperCase(),
};

const SPECIAL = [..."'\"\\/&<>%+!*()=?#:; \n\t", "é", "€", "😀", "\u2028"];
const charArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 5, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }).map((code) => String.fromCodePoint(code)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map((code) => String.fromCodePoint(code)) },
);
// A value of 8 characters or more besides blanks around it (shorter ones are not redacted: redaction.ts usedForms).
const secretArb = fc
  .array(charArb, { minLength: 8, maxLength: 30 })
  .map((chars) => chars.join(""))
  .filter((value) => value.trim().length >= 8);
const MARK = "[redacted:V]";

describe("every encoder's spelling is masked", () => {
  test("the red team's spellings of one value", () => {
    const value = "p&ss<w>rd'é/x!*";
    const redactor = createRedactor([{ name: "V", value }]);
    for (const [name, encode] of Object.entries(ENCODERS)) {
      const encoded = encode(value);
      expect(redactor.redact(`token: ${encoded}\n`), name).toBe(
        `token: ${encoded.startsWith('"') || encoded.startsWith("'") ? encoded[0] : ""}${MARK}${encoded.endsWith('"') || encoded.endsWith("'") ? (encoded.at(-1) as string) : ""}\n`,
      );
    }
  });

  for (const [name, encode] of Object.entries(ENCODERS)) {
    prop([secretArb, fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 })], { numRuns: propertyRuns(150) })(
      `${name}: the encoded value never survives`,
      (value, before, after) => {
        const encoded = encode(value);
        const out = createRedactor([{ name: "V", value }]).redact(`${before}${encoded}${after}`);
        expect(out).toContain(MARK);
        expect(out.includes(encoded)).toBe(false);
      },
    );
  }

  prop([secretArb, fc.string({ maxLength: 12 })], { numRuns: propertyRuns(150) })("a cut in the middle of an encoding masks the tail", (value, before) => {
    const encoded = goJson(value);
    const cutAt = Math.max(4, Math.floor(encoded.length / 2));
    const out = createRedactor([{ name: "V", value }]).redact(`${before} ${encoded.slice(0, cutAt)}`, { cut: true });
    expect(out.endsWith(CUT_TAIL_MARKER)).toBe(true);
    expect(out.includes(encoded.slice(0, cutAt))).toBe(false);
  });
});

describe("the DFA search finds what the Pike scan finds", () => {
  const fragments = (value: string): string[] => [
    ...value.slice(0, 5),
    value.slice(0, 6),
    goJson(value).slice(1, 9),
    encodeURIComponent(value).slice(0, 9),
    value,
    "\\",
    "%",
    "&#",
    "'",
  ];
  prop([secretArb, secretArb, fc.array(fc.nat(), { maxLength: 40 })], { numRuns: propertyRuns(200) })(
    "same spans on text made of pieces of two values' spellings",
    (first, second, picks) => {
      const set = spellingSet([compileSpellings(first, "[A]"), compileSpellings(second, "[B]")]);
      const pieces = [...fragments(first), ...fragments(second), goJson(first), html(second), "x"];
      const text = picks.map((pick) => pieces[pick % pieces.length] as string).join("");
      const pike: Span[] = [];
      completed(findSpellings(text, set, { from: 0, to: text.length }, pike));
      const searched: Span[] = [];
      completed(searchSpellings(text, set, new SpellingAutomaton(set), searched));
      expect(replaceSpans(text, searched)).toBe(replaceSpans(text, pike));
    },
  );
});

describe("the pattern is bounded (the scan's linearity: redaction-linear.test.ts)", () => {
  test("each character has a bounded number of spellings of bounded length", () => {
    for (const char of ["a", "'", " ", "é", "😀", "\n", "\\"]) {
      const spellings = characterSpellings(char);
      expect(spellings[0]).toBe(char);
      expect(spellings.length).toBeLessThanOrEqual(24);
      for (const spelling of spellings) expect(spelling.length).toBeLessThanOrEqual(24);
    }
  });
});
