/**
 * `/pattern/flags` rules. Flags come from `imsx` only, as in Torii: `i`, `m`
 * and `s` map to JavaScript's; `x` (extended: whitespace and `#` comments are
 * ignored outside character classes) is applied here because JavaScript lacks it.
 * Patterns are compiled with `u` so escapes are strict, as in Rust's regex.
 */

const ALLOWED_FLAGS = new Set(["i", "m", "s", "x"]);

/** True when a rule is written in the `/pattern/flags` form. */
export function isRegexRule(text: string): boolean {
  return text.startsWith("/") && text.lastIndexOf("/") > 0;
}

/** Removes whitespace and `#` comments outside character classes and escapes. */
function stripExtended(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i] as string;
    if (ch === "\\") {
      const next = pattern[i + 1] ?? "";
      // `\ ` and `\#` are how x mode writes a literal space or `#`; the stripped
      // pattern is no longer extended, and JavaScript's `u` mode refuses those
      // escapes, so the character is emitted bare.
      out += next === "#" || /\s/u.test(next) ? next : pattern.slice(i, i + 2);
      i += 1;
      continue;
    }
    if (inClass) {
      if (ch === "]") inClass = false;
      out += ch;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
    } else if (ch === "#") {
      while (i < pattern.length && pattern[i] !== "\n") i += 1;
    } else if (!/\s/u.test(ch)) {
      out += ch;
    }
  }
  return out;
}

/**
 * Compiles a `/pattern/flags` rule. Throws an Error with a readable message for
 * a flag outside `imsx`, a repeated flag, an empty pattern or invalid syntax.
 */
export function compileRegexRule(text: string): RegExp {
  const close = text.lastIndexOf("/");
  const pattern = text.slice(1, close);
  const flags = text.slice(close + 1);
  if (pattern.length === 0) throw new Error("the pattern is empty");
  const seen = new Set<string>();
  for (const flag of flags) {
    if (!ALLOWED_FLAGS.has(flag)) throw new Error(`flag "${flag}" is not allowed; use only i, m, s and x`);
    if (seen.has(flag)) throw new Error(`flag "${flag}" is repeated`);
    seen.add(flag);
  }
  const source = seen.has("x") ? stripExtended(pattern) : pattern;
  // `/ /x` or `/# todo/x` is empty once whitespace and comments are gone, and an
  // empty pattern matches every argv: refuse it like `//`.
  if (source.length === 0) throw new Error("the pattern is empty once x-mode whitespace and comments are removed");
  const jsFlags = [...seen].filter((flag) => flag !== "x").join("") + "u";
  try {
    return new RegExp(source, jsFlags);
  } catch (error) {
    throw new Error(`invalid regular expression: ${(error as Error).message}`);
  }
}
