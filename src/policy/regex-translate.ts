/**
 * Rewrites a rule pattern from JavaScript `u`-mode syntax (the syntax rules
 * have always been written in) into RE2 syntax with the same meaning, for the
 * linear-time engine. The input has already been accepted by JavaScript's
 * parser, so only valid `u`-mode syntax reaches this scanner.
 *
 * Where the two engines read the same text differently, the JavaScript meaning
 * is spelled out (docs/policy.md "Regex rules: engine"):
 * - `\s` / `\S`: JavaScript's Unicode white space, not RE2's ASCII set;
 * - `.` without `s`: every character except `\n`, `\r`, U+2028 and U+2029;
 * - `[]` never matches and `[^]` matches any character (RE2 reads a `]` there);
 * - inside a class every character is emitted as `\x{…}`, so RE2's `[:alpha:]`
 *   and a leading `]` cannot change a JavaScript class;
 * - `\uXXXX`, `\u{…}`, `\cX`, `\0` and `[\b]` become `\x{…}`;
 * - `(?<name>` becomes `(` (names never change a match; RE2 spells fewer names).
 * Backreferences and lookaround are copied unchanged: RE2 refuses them.
 */
import { classItems, hexEscape, JS_WHITE_SPACE, readEscape, renderItem } from "./regex-class.js";

export interface TranslatedPattern {
  /** The pattern in RE2 syntax. */
  readonly source: string;
  /** `^` or `$` occurs outside a class (line-sensitive under `m`). */
  readonly anchors: boolean;
  /** `\b` or `\B` occurs (word-character-sensitive under `i`). */
  readonly wordBoundaries: boolean;
}

export interface TranslateFlags {
  readonly ignoreCase: boolean;
  readonly dotAll: boolean;
}

const ANY_CODE_POINT = "\\x{0}-\\x{10ffff}";
const NOT_LINE_TERMINATOR = "[^\\n\\r\\x{2028}\\x{2029}]";

/** Thrown for a construct the linear-time engine could only run with a different meaning. */
export class UnsupportedConstructError extends Error {
  override readonly name = "UnsupportedConstructError";
}

/** Translates a `u`-mode JavaScript pattern (already validated by `new RegExp`) into RE2 syntax. */
export function translatePattern(pattern: string, flags: TranslateFlags): TranslatedPattern {
  let out = "";
  let anchors = false;
  let wordBoundaries = false;
  const refuseNegatedProperty = (text: string): void => {
    // JavaScript folds the complement of the property, RE2 complements the folded
    // property: `/\P{Ll}/iu` matches "a", RE2's `(?i)\P{Ll}` does not.
    if (flags.ignoreCase && text.startsWith("\\P")) {
      throw new UnsupportedConstructError(
        `${text} with the i flag (a negated Unicode property under case folding) means something else in the linear-time engine; write [^${text.replace("\\P", "\\p")}] instead`,
      );
    }
  };
  for (let i = 0; i < pattern.length;) {
    const ch = pattern[i] as string;
    if (ch === "[") {
      const parsed = classItems(pattern, i);
      parsed.items.forEach((item) => {
        if (item.kind === "escape") refuseNegatedProperty(item.text);
      });
      const body = parsed.items.map(renderItem).join("");
      if (body === "") out += parsed.negated ? `[${ANY_CODE_POINT}]` : `[^${ANY_CODE_POINT}]`;
      else out += `[${parsed.negated ? "^" : ""}${body}]`;
      i = parsed.end;
    } else if (ch === "\\") {
      const escape = readEscape(pattern, i, false);
      if (escape.kind === "char") out += hexEscape(escape.codePoint);
      else if (escape.text === "\\s") out += `[${JS_WHITE_SPACE.text}]`;
      else if (escape.text === "\\S") out += `[^${JS_WHITE_SPACE.text}]`;
      else {
        refuseNegatedProperty(escape.text);
        if (escape.text === "\\b" || escape.text === "\\B") wordBoundaries = true;
        out += escape.text;
      }
      i = escape.end;
    } else if (ch === "." && !flags.dotAll) {
      out += NOT_LINE_TERMINATOR;
      i += 1;
    } else if (pattern.startsWith("(?<", i) && pattern[i + 3] !== "=" && pattern[i + 3] !== "!") {
      out += "(";
      i = pattern.indexOf(">", i) + 1;
    } else {
      if (ch === "^" || ch === "$") anchors = true;
      out += ch;
      i += 1;
    }
  }
  return { source: out, anchors, wordBoundaries };
}
