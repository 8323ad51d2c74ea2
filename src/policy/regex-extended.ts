/**
 * The `x` flag of `/pattern/flags` rules (extended mode, as in Perl and Rust's
 * regex): whitespace and `#` comments outside character classes are not part
 * of the pattern. Neither JavaScript nor RE2 has this flag, so Torii removes
 * them before either engine sees the pattern.
 */

/**
 * Removes whitespace and `#` comments outside character classes and escapes.
 * `\ ` and `\#` stay as a literal space and `#`; inside `[...]` both are kept.
 */
export function stripExtended(pattern: string): string {
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
