/**
 * Differential property (issue 7): a random rule built from a safe grammar
 * (literals, classes, class escapes, alternation, quantifiers, anchors, groups,
 * flags imsx) decides the same through the linear-time engine as through the
 * JavaScript engine rules used before, on random argv, wherever both apply.
 * The one place they cannot agree (m mode with \r, U+2028 or U+2029 in the
 * argv) must err on the safe side: deny rules match, accept rules do not.
 * fast-check with a fixed seed; the JavaScript side only ever sees short
 * subjects, so its backtracking stays cheap.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stripExtended } from "../../../src/policy/regex-extended.js";
import { compileRegexRule } from "../../../src/policy/regex-rule.js";

const SEED = 7_2026_11;
const RUNS = 1_000;

/** Characters that test case folding, white space, line terminators, astral code points and syntax. */
const ALPHABET = [
  "a",
  "b",
  "A",
  "B",
  "k",
  "K",
  "\u212a",
  "s",
  "S",
  "\u017f",
  "0",
  "7",
  "-",
  "=",
  "_",
  ".",
  "/",
  " ",
  "é",
  "É",
  "😀",
  "\n",
  "\r",
  "\u2028",
  "\u00a0",
  "\t",
  "[",
  "]",
];
const SYNTAX = new Set(Array.from("\\^$.*+?()[]{}|/"));

type Spelling = "raw" | "u4" | "ubrace";

function literal(ch: string, spelling: Spelling, extended: boolean, inClass: boolean): string {
  const codePoint = ch.codePointAt(0) as number;
  if (spelling === "u4" && codePoint <= 0xffff) return `\\u${codePoint.toString(16).padStart(4, "0")}`;
  if (spelling === "ubrace" || codePoint < 0x20 || codePoint === 0x2028) return `\\u{${codePoint.toString(16)}}`;
  if (SYNTAX.has(ch) || (inClass && ch === "-")) return `\\${ch}`;
  if (extended && !inClass && (ch === " " || ch === "\u00a0")) return `\\${ch}`;
  return ch;
}

const charArb = fc.constantFrom(...ALPHABET);
const spellingArb = fc.constantFrom<Spelling>("raw", "raw", "u4", "ubrace");

/** A pattern renderer: the same tree is written for x mode (spaces, a comment) or not. */
type Render = (extended: boolean) => string;

const classArb: fc.Arbitrary<Render> = fc
  .record({
    negated: fc.boolean(),
    items: fc.array(
      fc.oneof(
        fc.tuple(charArb, spellingArb).map(
          ([ch, spelling]): Render =>
            (x) =>
              literal(ch, spelling, x, true),
        ),
        fc.constantFrom("a-c", "A-Z", "0-9", "\\u00e0-\\u00ff", "j-l", "r-t", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", " ").map(
          (text): Render =>
            () =>
              text,
        ),
      ),
      { minLength: 0, maxLength: 3 },
    ),
  })
  .map(
    ({ negated, items }): Render =>
      (x) =>
        `[${negated ? "^" : ""}${items.map((item) => item(x)).join("")}]`,
  );

const atomArb: fc.Arbitrary<Render> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.tuple(charArb, spellingArb).map(
      ([ch, spelling]): Render =>
        (x) =>
          literal(ch, spelling, x, false),
    ),
  },
  { weight: 2, arbitrary: classArb },
  {
    weight: 2,
    arbitrary: fc.constantFrom("\\d", "\\D", "\\w", "\\W", "\\s", "\\S", ".", ".", ".").map(
      (text): Render =>
        () =>
          text,
    ),
  },
);

/** Assertions take no quantifier in u mode. */
const assertionArb: fc.Arbitrary<Render> = fc.constantFrom("\\b", "\\B", "^", "$").map(
  (text): Render =>
    () =>
      text,
);

const quantifierArb = fc.oneof(fc.constantFrom("", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "{1,3}"), fc.constantFrom("*?", "+?", "??", "{1,2}?"));

let groupCounter = 0;
const patternArb = fc.letrec<{ node: Render; sequence: Render }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 2, depthIdentifier: "group", withCrossShrink: true },
    atomArb,
    fc.tuple(fc.constantFrom("(", "(?:", "(?<g>"), fc.array(tie("sequence"), { minLength: 1, maxLength: 3 })).map(([open, alternatives]): Render => (x) => {
      const opening = open === "(?<g>" ? `(?<g${(groupCounter += 1)}>` : open;
      return `${opening}${alternatives.map((alternative) => alternative(x)).join("|")})`;
    }),
  ),
  sequence: fc
    .array(
      fc.oneof(
        {
          weight: 4,
          arbitrary: fc.tuple(tie("node"), quantifierArb).map(
            ([node, quantifier]): Render =>
              (x) =>
                node(x) + quantifier,
          ),
        },
        { weight: 1, arbitrary: assertionArb },
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map(
      (parts): Render =>
        (x) =>
          parts.map((part) => part(x)).join(x ? " " : ""),
    ),
}));

const ruleArb = fc.record({ tree: patternArb.sequence, flags: fc.subarray(["i", "m", "s", "x"]), comment: fc.boolean() }).map(({ tree, flags, comment }) => {
  const extended = flags.includes("x");
  const pattern = tree(extended) + (extended && comment ? " # why this rule" : "");
  return { text: `/${pattern}/${flags.join("")}`, pattern, flags };
});

const argvArb = fc.array(
  fc.array(charArb, { maxLength: 4 }).map((chars) => chars.join("")),
  { minLength: 1, maxLength: 3 },
);

function oldEngine(pattern: string, flags: readonly string[]): RegExp | undefined {
  const source = flags.includes("x") ? stripExtended(pattern) : pattern;
  try {
    return new RegExp(source, `${flags.filter((flag) => flag !== "x").join("")}u`);
  } catch {
    return undefined;
  }
}

describe("linear-time engine vs the JavaScript engine, random rules on random argv", () => {
  it("decide the same wherever both apply; where m-mode line ends differ, deny matches and accept does not", () => {
    const counts = { compared: 0, matched: 0, invalid: 0, lineEndCases: 0 };
    fc.assert(
      fc.property(ruleArb, argvArb, fc.constantFrom("deny" as const, "accept" as const), ({ text, pattern, flags }, argv, list) => {
        const old = oldEngine(pattern, flags);
        if (old === undefined) {
          counts.invalid += 1;
          expect(() => compileRegexRule(text, "accept")).toThrow();
          return;
        }
        const subject = argv.join(" ");
        const expected = old.test(subject);
        const actual = compileRegexRule(text, list).test(subject);
        if (flags.includes("m") && /[\r\u2028\u2029]/u.test(subject)) {
          counts.lineEndCases += 1;
          // Never less strict than before: a deny that matched still matches, an accept that did not still does not.
          if (list === "deny" && expected) expect(actual).toBe(true);
          if (list === "accept" && !expected) expect(actual).toBe(false);
          return;
        }
        counts.compared += 1;
        if (expected) counts.matched += 1;
        expect({ text, subject, list, matches: actual }).toEqual({ text, subject, list, matches: expected });
      }),
      { seed: SEED, numRuns: RUNS },
    );
    // The generator must keep exercising both answers and mostly valid rules.
    expect(counts.compared).toBeGreaterThan(RUNS * 0.6);
    expect(counts.matched).toBeGreaterThan(counts.compared * 0.15);
    expect(counts.compared - counts.matched).toBeGreaterThan(counts.compared * 0.15);
    expect(counts.lineEndCases).toBeGreaterThan(RUNS * 0.03);
  });
});
