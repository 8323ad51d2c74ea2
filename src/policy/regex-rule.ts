/**
 * `/pattern/flags` rules. Flags come from `imsx` only, as in Torii. Patterns
 * are written in JavaScript's `u`-mode syntax (strict escapes, as in Rust's
 * regex) and run on RE2 (re2js): matching time is linear in the argv whatever
 * the pattern, so an operator rule can never freeze the server. A pattern is
 * accepted only when both JavaScript's parser and RE2's accept it, and the few
 * places where the engines read the same text differently are translated to
 * the JavaScript meaning (regex-translate.ts; docs/policy.md).
 */
import { createRequire } from "node:module";
import type { RE2JS } from "re2js";
import { stripExtended } from "./regex-extended.js";
import { translatePattern, UnsupportedConstructError } from "./regex-translate.js";
import { describeEngineRefusal } from "./regex-unsupported.js";
import type { RuleList } from "./types.js";

const ALLOWED_FLAGS = new Set(["i", "m", "s", "x"]);
/** The largest compiled rule (RE2 instructions) accepted; see compileForEngine. */
export const MAX_PROGRAM_SIZE = 500;

/** What the rule engine asks of a compiled regex rule. */
export interface RuleMatcher {
  /** True when the pattern is found anywhere in `subject`. */
  test(subject: string): boolean;
}

export interface CompiledRegexRule extends RuleMatcher {
  /** The pattern as written, after x-mode stripping (JavaScript syntax). */
  readonly source: string;
  /** The flags in force among `i`, `m`, `s` (x is applied before compiling). */
  readonly flags: string;
}

// Under `m`, JavaScript also ends a line at `\r`, U+2028 and U+2029; RE2 only at
// `\n`. The anchors cannot be rewritten without lookaround, so for such a subject
// the rule's answer is the fail-closed one for its list.
const OTHER_LINE_TERMINATORS = /[\r\u2028\u2029]/u;
// Under `iu`, JavaScript counts U+017F (ſ) and U+212A (Kelvin) as word characters
// for `\b`; RE2's `\b` is ASCII. Under `i` every other atom treats them exactly as
// the `s` and `k` they fold to, so replacing them changes only `\b` and `\B`.
const FOLDED_WORD_CHARACTERS = /[\u017f\u212a]/gu;
const foldWordCharacter = (ch: string): string => (ch === "\u017f" ? "s" : "k");

// re2js (260 KB) is loaded with the first regex rule compiled, so operator commands
// and policies without regex rules do not pay for it at start-up.
let engineClass: typeof RE2JS | undefined;
function linearTimeEngine(): typeof RE2JS {
  engineClass ??= (createRequire(import.meta.url)("re2js") as typeof import("re2js")).RE2JS;
  return engineClass;
}

/** True when a rule is written in the `/pattern/flags` form. */
export function isRegexRule(text: string): boolean {
  return text.startsWith("/") && text.lastIndexOf("/") > 0;
}

function parseFlags(flags: string): Set<string> {
  const seen = new Set<string>();
  for (const flag of flags) {
    if (!ALLOWED_FLAGS.has(flag)) throw new Error(`flag "${flag}" is not allowed; use only i, m, s and x`);
    if (seen.has(flag)) throw new Error(`flag "${flag}" is repeated`);
    seen.add(flag);
  }
  return seen;
}

/**
 * JavaScript's parser defines the rule language (only syntax: nothing is matched
 * with it). RE2 alone would accept texts rules never had, such as `a{,5}` (a
 * literal there) or `(?i)`, and the translation reads valid `u`-mode text only.
 */
function checkSyntax(source: string): void {
  try {
    new RegExp(source, "u");
  } catch (error) {
    throw new Error(`invalid regular expression: ${syntaxErrorKind(source, (error as Error).message)}`);
  }
}

/**
 * The kind of a syntax error (`Unterminated group`), without the pattern V8
 * quotes before it (`Invalid regular expression: /<pattern>/u: …`): a rule's
 * text can hold option values, and the message reaches logs and the agent.
 */
export function syntaxErrorKind(source: string, message: string): string {
  const quoted = `Invalid regular expression: /${source}/u: `;
  return message.startsWith(quoted) ? message.slice(quoted.length) : "a syntax error";
}

function compileForEngine(engineSource: string, flags: Set<string>): RE2JS {
  const Engine = linearTimeEngine();
  const engineFlags = (flags.has("i") ? Engine.CASE_INSENSITIVE : 0) | (flags.has("m") ? Engine.MULTILINE : 0) | (flags.has("s") ? Engine.DOTALL : 0);
  let engine: RE2JS;
  try {
    engine = Engine.compile(engineSource, engineFlags);
  } catch (error) {
    throw new Error(`invalid regular expression: ${describeEngineRefusal(error)}`);
  }
  // Linear time is (program size × argv length): a rule such as `(?:\p{L}|\p{N}){1000}`
  // took 30 s on the largest argv the envelope allows. The cap keeps the worst
  // case near half a second (bench/regex-engine.mjs) and is far above real rules.
  const size = (engine.re2().prog as { numInst(): number }).numInst();
  if (size > MAX_PROGRAM_SIZE) {
    throw new Error(
      `unsupported regular expression: it compiles to ${String(size)} engine instructions, above the limit of ${String(MAX_PROGRAM_SIZE)} that bounds a decision's time on a long argv; shorten its repetitions`,
    );
  }
  return engine;
}

function translate(source: string, flags: Set<string>): ReturnType<typeof translatePattern> {
  try {
    return translatePattern(source, { ignoreCase: flags.has("i"), dotAll: flags.has("s") });
  } catch (error) {
    if (error instanceof UnsupportedConstructError) throw new Error(`unsupported regular expression: ${error.message}`);
    throw error;
  }
}

/**
 * Compiles a `/pattern/flags` rule of `list`. Throws an Error with a readable
 * message for a flag outside `imsx`, a repeated flag, an empty pattern, invalid
 * syntax, or a construct the linear-time engine cannot run (backreferences,
 * lookaround), named in the message.
 */
export function compileRegexRule(text: string, list: RuleList): CompiledRegexRule {
  const close = text.lastIndexOf("/");
  const pattern = text.slice(1, close);
  if (pattern.length === 0) throw new Error("the pattern is empty");
  const flags = parseFlags(text.slice(close + 1));
  const source = flags.has("x") ? stripExtended(pattern) : pattern;
  // `/ /x` or `/# todo/x` is empty once whitespace and comments are gone, and an
  // empty pattern matches every argv: refuse it like `//`.
  if (source.length === 0) throw new Error("the pattern is empty once x-mode whitespace and comments are removed");
  checkSyntax(source);
  const translated = translate(source, flags);
  const engine = compileForEngine(translated.source, flags);
  const lineSensitive = flags.has("m") && translated.anchors;
  const foldsWordCharacters = flags.has("i") && translated.wordBoundaries;
  const whenLinesDiffer = list === "deny";
  return {
    source,
    flags: ["i", "m", "s"].filter((flag) => flags.has(flag)).join(""),
    test(subject: string): boolean {
      if (lineSensitive && OTHER_LINE_TERMINATORS.test(subject)) return whenLinesDiffer;
      return engine.test(foldsWordCharacters ? subject.replace(FOLDED_WORD_CHARACTERS, foldWordCharacter) : subject);
    },
  };
}
