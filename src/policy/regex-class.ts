/**
 * The scanner pieces of the rule-pattern translation (regex-translate.ts):
 * escapes and character classes of JavaScript's `u` mode, read into code
 * points, ranges and class escapes so they can be written out for RE2.
 */

/** A code point, a range of code points, or a class escape kept as text (`\d`, `\p{L}`). */
export type ClassItem =
  | { readonly kind: "char"; readonly codePoint: number }
  | { readonly kind: "range"; readonly from: number; readonly to: number }
  | { readonly kind: "escape"; readonly text: string };

export type Escape = ({ readonly kind: "char"; readonly codePoint: number } | { readonly kind: "escape"; readonly text: string }) & {
  /** Index just after the escape. */
  readonly end: number;
};

/** JavaScript's `\s` (ECMAScript WhiteSpace and LineTerminator), as sorted inclusive ranges. */
const WHITE_SPACE_RANGES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) out.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

const toItems = (ranges: readonly (readonly [number, number])[]): ClassItem[] =>
  ranges.map(([from, to]) => (from === to ? { kind: "char", codePoint: from } : { kind: "range", from, to }));

/** A code point as RE2's `\x{…}`: safe in and out of a class, whatever the character. */
export function hexEscape(codePoint: number): string {
  return `\\x{${codePoint.toString(16)}}`;
}

/** One class item in RE2 syntax. */
export function renderItem(item: ClassItem): string {
  switch (item.kind) {
    case "char":
      return hexEscape(item.codePoint);
    case "range":
      return `${hexEscape(item.from)}-${hexEscape(item.to)}`;
    case "escape":
      return item.text;
  }
}

/** JavaScript's `\s` and `\S` as class items, and `\s` as an RE2 class body. */
export const JS_WHITE_SPACE = {
  items: toItems(WHITE_SPACE_RANGES),
  complementItems: toItems(complement(WHITE_SPACE_RANGES)),
  text: toItems(WHITE_SPACE_RANGES).map(renderItem).join(""),
  ranges: WHITE_SPACE_RANGES,
} as const;

const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d, "0": 0x00 };

function readHex(pattern: string, start: number, length: number): number {
  return Number.parseInt(pattern.slice(start, start + length), 16);
}

/** `\uXXXX`, a `\uXXXX\uXXXX` surrogate pair (one code point in `u` mode), or `\u{…}`. */
function readUnicodeEscape(pattern: string, at: number): Escape {
  if (pattern[at + 2] === "{") {
    const close = pattern.indexOf("}", at);
    return { kind: "char", codePoint: readHex(pattern, at + 3, close - at - 3), end: close + 1 };
  }
  const unit = readHex(pattern, at + 2, 4);
  if (unit >= 0xd800 && unit <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/u.test(pattern.slice(at + 6, at + 12))) {
    const low = readHex(pattern, at + 8, 4);
    return { kind: "char", codePoint: 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00), end: at + 12 };
  }
  return { kind: "char", codePoint: unit, end: at + 6 };
}

/** Reads the escape that starts at `at` (a backslash). */
export function readEscape(pattern: string, at: number, inClass: boolean): Escape {
  const next = pattern[at + 1] ?? "";
  if ("dDwWsS".includes(next) || (!inClass && "bB".includes(next))) return { kind: "escape", text: `\\${next}`, end: at + 2 };
  if (next === "b") return { kind: "char", codePoint: 0x08, end: at + 2 };
  if (next === "p" || next === "P") {
    const close = pattern.indexOf("}", at);
    return { kind: "escape", text: pattern.slice(at, close + 1), end: close + 1 };
  }
  if (next === "u") return readUnicodeEscape(pattern, at);
  if (next === "x") return { kind: "char", codePoint: readHex(pattern, at + 2, 2), end: at + 4 };
  if (next === "c") return { kind: "char", codePoint: (pattern.codePointAt(at + 2) as number) % 32, end: at + 3 };
  const control = CONTROL_ESCAPES[next];
  if (control !== undefined) return { kind: "char", codePoint: control, end: at + 2 };
  // A backreference (`\1`, `\k<name>`) is kept as written: RE2 refuses it by name.
  const backreference = /^\\(?:[1-9][0-9]*|k<[^>]*>)/u.exec(pattern.slice(at));
  if (backreference !== null) return { kind: "escape", text: backreference[0], end: at + backreference[0].length };
  // An identity escape of a syntax character (`\.`, `\/`, `\-` in a class).
  const codePoint = pattern.codePointAt(at + 1) as number;
  return { kind: "char", codePoint, end: at + 1 + String.fromCodePoint(codePoint).length };
}

function readAtom(pattern: string, at: number): Escape {
  if (pattern[at] === "\\") return readEscape(pattern, at, true);
  const codePoint = pattern.codePointAt(at) as number;
  return { kind: "char", codePoint, end: at + String.fromCodePoint(codePoint).length };
}

/** Reads the class that starts at `at` (a `[`) into items; `end` is just after its `]`. */
export function classItems(pattern: string, at: number): { negated: boolean; items: ClassItem[]; end: number } {
  const negated = pattern[at + 1] === "^";
  const items: ClassItem[] = [];
  let i = at + (negated ? 2 : 1);
  while (pattern[i] !== "]") {
    const atom = readAtom(pattern, i);
    i = atom.end;
    if (atom.kind === "escape") {
      if (atom.text === "\\s") items.push(...JS_WHITE_SPACE.items);
      else if (atom.text === "\\S") items.push(...JS_WHITE_SPACE.complementItems);
      else items.push({ kind: "escape", text: atom.text });
    } else if (pattern[i] === "-" && pattern[i + 1] !== "]") {
      // `u` mode allows a range only between two single characters, so this is one.
      const to = readAtom(pattern, i + 1);
      items.push({ kind: "range", from: atom.codePoint, to: (to as { codePoint: number }).codePoint });
      i = to.end;
    } else {
      items.push({ kind: "char", codePoint: atom.codePoint });
    }
  }
  return { negated, items, end: i + 1 };
}
