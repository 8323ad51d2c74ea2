/**
 * The Pike scan follows the threads of at most MAX_STARTS distinct starts
 * (spelling-matcher.ts); a start past the bound is dropped and the longest spelling from its start is
 * masked instead. Output can meet the bound on purpose when a value has a long
 * periodic run (`abab…`, backslashes): these tests put a real value behind
 * such decoys, so that the value's own thread is one of those dropped, and
 * check that nothing of it comes out: not whole, not as a 12-character piece
 * of its spelling, not in an escaped spelling, not across the two streams,
 * not through the normalised view, not at a cut.
 */
import { describe, expect, test } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { redactOutput } from "../../../src/runtime/redact-output.js";
import { createRedactor } from "../../../src/runtime/redaction.js";
import { characterSpellings } from "../../../src/runtime/secret-forms.js";
import { OVERLAPPING_MARKER } from "../../../src/runtime/spelling-matcher.js";

/** The random part of the secret: no 12-character piece of its spelling may be seen. */
const RANDOM = "Q7x9Lm2Pz4Rt8KwVb3Nc6Hd1";
/**
 * A value that keeps a thread per period alive in `abab…` output: longer than
 * any run printed here, so that the first threads never end and every later
 * one (the secret's among them) is past the bound.
 */
const DECOY = `${"ab".repeat(4000)}Z`;
/** The secret starts with the decoys' run, so its thread starts while they are alive and is dropped. */
const SECRET = `${"ab".repeat(40)}${RANDOM}`;
const SECRETS = [
  { name: "DECOY", value: DECOY },
  { name: "SECRET", value: SECRET },
];

const unicodeEscaped = (text: string): string => [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
const percentEncoded = (text: string): string => [...text].map((char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).join("");

/** A 12-unit piece of `spelled` (the secret's random part as printed) still found in `out`, if any. */
function leakedPiece(out: string, spelled: string): string | undefined {
  for (let at = 0; at + 12 <= spelled.length; at += 1) if (out.includes(spelled.slice(at, at + 12))) return spelled.slice(at, at + 12);
  return undefined;
}

describe("a value behind more overlapping spellings than the search follows", () => {
  const spellings: [string, (text: string) => string][] = [
    ["as it is", (text) => text],
    ["in \\u escapes", unicodeEscaped],
    ["percent-encoded", percentEncoded],
    ["with a NUL after each character (the normalised view)", (text) => [...text].map((char) => `${char}\u0000`).join("")],
  ];
  for (const [name, spell] of spellings) {
    for (const flood of [200, 6000]) {
      test(`${name}, after ${flood} characters of the run (${flood < 4096 ? "the Pike scan alone" : "the DFA's search"})`, () => {
        const printed = spell(RANDOM);
        const text = `${"ab".repeat(flood / 2)}${"ab".repeat(40)}${printed}\nnext line`;
        const out = createRedactor(SECRETS).redact(text);
        expect(out).toContain(OVERLAPPING_MARKER);
        expect(leakedPiece(out, printed)).toBeUndefined();
      });
    }
  }

  test("a value's \\u spelling after a flood of backslashes, a value of backslashes keeping the threads", () => {
    const secrets = [
      { name: "SLASHES", value: `${"\\".repeat(20)}y` },
      { name: "SECRET", value: RANDOM },
    ];
    const printed = unicodeEscaped(RANDOM);
    const out = createRedactor(secrets).redact(`${"\\".repeat(3000)}${printed}\n${"\\".repeat(100)}${printed}`);
    expect(out).toContain(OVERLAPPING_MARKER);
    expect(leakedPiece(out, printed)).toBeUndefined();
  });

  test("split across stdout and stderr where the threads are dropped", async () => {
    for (const split of [80, 86, 92, 98]) {
      const text = `${"ab".repeat(100)}${SECRET}`;
      const cut = 200 + split;
      const stdout = `${text.slice(0, cut)}`;
      const stderr = `${text.slice(cut)}\n`;
      const out = await redactOutput({ stdout, stderr, interleaving: [stdout.length, stderr.length] }, createRedactor(SECRETS), {
        cut: false,
        maxBytes: 1 << 20,
      });
      for (const stream of [out.stdout, out.stderr]) expect(leakedPiece(stream, RANDOM)).toBeUndefined();
      // The part on each stream is no 12-character piece of the value on its own: only the search across the switch masks it.
      for (const part of [RANDOM.slice(0, split - 80), RANDOM.slice(split - 80)])
        if (part.length > 0) expect(`${out.stdout}|${out.stderr}`).not.toContain(part);
    }
  });

  prop(
    [
      fc.integer({ min: 0, max: 3000 }),
      fc.array(fc.nat(), { minLength: SECRET.length, maxLength: SECRET.length }),
      fc.constantFrom("", "\u0000", "\u001b[1m"),
      fc.option(fc.nat(), { nil: undefined }),
    ],
    { numRuns: 40 },
  )("any spelling of the value after any run of decoys, cut anywhere or not: no 12-character piece of it is seen", (flood, choices, junk, cutAt) => {
    const chars = [...SECRET];
    const pieces = chars.map((char, index) => {
      const forms = characterSpellings(char);
      return `${forms[(choices[index] as number) % forms.length] as string}${junk}`;
    });
    const printed = pieces.slice(80).join("");
    const whole = `${"ab".repeat(flood)}${pieces.join("")}\ndone`;
    const cut = cutAt === undefined ? undefined : cutAt % whole.length;
    const text = cut === undefined ? whole : whole.slice(0, cut);
    const out = createRedactor(SECRETS).redact(text, { cut: cut !== undefined });
    expect(leakedPiece(out, printed)).toBeUndefined();
  });
});

describe("many values of distinct first characters: an escape character starts one spelling of each, from one start", () => {
  // 70 random-looking values, each beginning with another character: a `\`, `%` or `&` in the output begins a
  // spelling (`\uXXXX`, `%XX`, `&#…;`) of every one of them at once, 70 threads from one place.
  const FIRSTS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=.:~@!$*";
  const many = [...FIRSTS].slice(0, 70).map((first, index) => ({ name: `VALUE_${index}`, value: `${first}${RANDOM.slice(index % 8)}${index}` }));

  test("ordinary output with escapes (JSON's \\\", a Windows path, a percent-encoded URL) comes out as it was", () => {
    const text = [
      JSON.stringify({ message: 'the file "C:\\Users\\dev\\report.csv" was not found', path: "C:\\Users\\dev" }),
      'value "C:\\Users\\dev\\report.csv" is not valid',
      "https://example.test/a%20b/%7Euser?q=%41%42&x=&amp;",
    ].join("\n");
    const out = createRedactor(many).redact(text);
    expect(out).not.toContain(OVERLAPPING_MARKER);
    expect(out).toBe(text);
  });

  test("whether a short escaped text is masked does not tell which characters the values start with", () => {
    const redactor = createRedactor(many);
    // "%41" is A (a value starts with it), "%7E" is ~ (one does too), "%25" is % (none does): the same shape each.
    const shapes = ["%41", "%7E", "%25"].map((escape) => redactor.redact(`zz${escape}\\kkkk`).replace(/%[0-9A-F]{2}/gu, "%XX"));
    expect(new Set(shapes).size).toBe(1);
    expect(shapes[0]).toBe("zz%XX\\kkkk");
  });
});
