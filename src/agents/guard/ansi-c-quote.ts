/**
 * Bash's `$'…'` quoting: the escapes it decodes, so `$'\x6bubectl'` reads as
 * `kubectl` to the guard exactly as it does to bash.
 */
import { ShellParseError } from "./shell-words.js";

const SIMPLE: Readonly<Record<string, string>> = {
  a: "\u0007",
  b: "\b",
  e: "\u001b",
  E: "\u001b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/**
 * Decodes the body of `$'…'` starting at `start` (just after the opening quote).
 *
 * @returns the decoded text and the index just after the closing quote.
 * @throws ShellParseError when the quote is not closed.
 */
export function readAnsiCQuoted(source: string, start: number): { text: string; end: number } {
  let text = "";
  let at = start;
  while (at < source.length) {
    const char = source[at] ?? "";
    if (char === "'") return { text, end: at + 1 };
    if (char !== "\\") {
      text += char;
      at += 1;
      continue;
    }
    const next = source[at + 1] ?? "";
    const simple = SIMPLE[next];
    if (simple !== undefined) {
      text += simple;
      at += 2;
      continue;
    }
    const escape = numericEscape(source, at + 1);
    if (escape !== undefined) {
      text += escape.text;
      at = escape.end;
      continue;
    }
    if (next === "c" && at + 2 < source.length) {
      // \cX: the control character of X.
      text += String.fromCharCode((source.charCodeAt(at + 2) & 0x1f) >>> 0);
      at += 3;
      continue;
    }
    text += `\\${next}`;
    at += 2;
  }
  throw new ShellParseError("a $'…' quote is not closed");
}

const NUMERIC: readonly { readonly lead: string; readonly digits: RegExp; readonly base: number; readonly max: number }[] = [
  { lead: "x", digits: /^[0-9A-Fa-f]{1,2}/u, base: 16, max: 2 },
  { lead: "u", digits: /^[0-9A-Fa-f]{1,4}/u, base: 16, max: 4 },
  { lead: "U", digits: /^[0-9A-Fa-f]{1,8}/u, base: 16, max: 8 },
];

function numericEscape(source: string, at: number): { text: string; end: number } | undefined {
  const lead = source[at] ?? "";
  const octal = /^[0-7]{1,3}/u.exec(source.slice(at, at + 3));
  if (octal !== null) return { text: String.fromCharCode(parseInt(octal[0], 8) & 0xff), end: at + octal[0].length };
  const form = NUMERIC.find((candidate) => candidate.lead === lead);
  if (form === undefined) return undefined;
  const digits = form.digits.exec(source.slice(at + 1, at + 1 + form.max));
  if (digits === null) return undefined;
  const code = parseInt(digits[0], form.base);
  if (code > 0x10ffff) throw new ShellParseError("a $'…' quote holds an escape outside Unicode");
  return { text: String.fromCodePoint(code), end: at + 1 + digits[0].length };
}
