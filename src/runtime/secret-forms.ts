/**
 * The spellings of one secret value that a CLI may print, for the redactor.
 *
 * Character by character (`characterSpellings`): every character of the value
 * may appear as itself or as any of its common escapes, independently, so one
 * pattern per value covers every encoder that escapes some characters and not
 * others:
 *
 * - JSON and JavaScript: `\uXXXX` in either case (surrogate pairs for astral
 *   characters; Go escapes `< > &`, Python every non-ASCII character), `\u{…}`,
 *   `\n`-style short escapes, a backslash before any ASCII punctuation (`\/`,
 *   `\"`, shell's `\$`);
 *   Python and C: `\xXX` (Latin-1 and each UTF-8 byte), `\U0001XXXX`;
 * - URL encoding: `%XX` of each UTF-8 byte in either case (`encodeURIComponent`,
 *   Python's `quote` keeping `/`), `+` for a space (forms);
 * - HTML: `&#DD;`, `&#xXX;`, `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`;
 * - quoting: `''` for a single quote (YAML, SQL), `'\''` (POSIX shell),
 *   `""` for a double quote (CSV).
 *
 * As blobs (`blobForms`, one pattern per form whose characters may vary where
 * the variants differ): base64, standard and URL-safe alphabet. Inside a
 * longer encoded blob the value starts at byte offset 0, 1 or 2 of a 3-byte
 * group, and each offset gives different characters; only the characters whose
 * 6 bits all come from the value are used, so the form matches whatever
 * surrounds it. And hex of its UTF-8 bytes, lower or upper case (`xxd -p`),
 * also with a space or a colon between bytes (`od`/`hexdump`-style dumps of a
 * request body, `curl --trace`, fingerprints) and in xxd's 2-byte groups (only
 * when the value starts at an even byte of a group and its dump fits one line).
 *
 * Pure: no I/O.
 */

const JSON_SHORT: Readonly<Record<string, string>> = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const HTML_NAMED: Readonly<Record<string, readonly string[]>> = {
  "&": ["&amp;"],
  "<": ["&lt;"],
  ">": ["&gt;"],
  '"': ["&quot;", '""'],
  "'": ["&apos;", "''", "'\\''"],
  " ": ["+"],
};

const hex = (value: number, width: number): string => value.toString(16).padStart(width, "0");

/** Every spelling of one character (a code point) an encoder may print, itself first. */
export function characterSpellings(char: string): readonly string[] {
  const code = char.codePointAt(0) ?? 0;
  const bytes = [...Buffer.from(char, "utf8")];
  const spellings = new Set<string>([char, ...(HTML_NAMED[char] ?? [])]);
  const short = JSON_SHORT[char];
  if (short !== undefined) spellings.add(short).add(`\\${short}`);
  // JSON inside a JSON string (kubectl's last-applied-configuration, a log line holding a JSON body): the
  // escapes JSON itself writes, escaped once more.
  if (char === '"' || char === "\\") spellings.add(`\\\\\\${char}`);
  if (code < 0x80 && /[!-/:-@[-`{-~]/u.test(char)) spellings.add(`\\${char}`);
  const units = char.length === 1 ? [code] : [char.charCodeAt(0), char.charCodeAt(1)];
  for (const upper of [false, true]) {
    const cased = (text: string): string => (upper ? text.toUpperCase() : text);
    spellings.add(units.map((unit) => `\\u${cased(hex(unit, 4))}`).join(""));
    if (code >= 0x80 || code < 0x20) spellings.add(units.map((unit) => `\\\\u${cased(hex(unit, 4))}`).join(""));
    spellings.add(`\\u{${cased(hex(code, 1))}}`);
    if (code > 0xffff) spellings.add(`\\U${cased(hex(code, 8))}`);
    if (code < 0x100) spellings.add(`\\x${cased(hex(code, 2))}`);
    spellings.add(bytes.map((byte) => `\\x${cased(hex(byte, 2))}`).join(""));
    spellings.add(bytes.map((byte) => `%${cased(hex(byte, 2))}`).join(""));
    spellings.add(`&#x${cased(hex(code, 1))};`);
  }
  spellings.add(`&#${code};`);
  return [...spellings];
}

/**
 * A fixed form of a value (spelling-matcher.ts `compileLiteral`): its text,
 * and for some of its characters the other characters that may stand in
 * their place, so one pattern covers variants that differ only there (the
 * URL-safe base64 alphabet, hex in either case or with another separator).
 */
export interface FixedForm {
  readonly text: string;
  readonly variants: Readonly<Record<string, string>>;
}

/** The URL-safe alphabet (RFC 4648 §5) differs from the standard one in two characters. */
const BASE64_VARIANTS: Readonly<Record<string, string>> = { "+": "+-", "/": "/_" };
/** Hex digits in either case, a byte separator of a space or a colon. */
const HEX_VARIANTS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(["a", "b", "c", "d", "e", "f"].map((digit) => [digit, `${digit}${digit.toUpperCase()}`])),
  " ": " :",
};

/**
 * The base64 forms of `value` at the three alignments (either alphabet), and
 * its UTF-8 bytes in hex (either case; plain, a byte at a time with a space or
 * a colon between, and in xxd's 2-byte groups).
 */
export function blobForms(value: string): readonly FixedForm[] {
  const forms = new Map<string, FixedForm>();
  for (const offset of [0, 1, 2]) {
    const core = base64Core(Buffer.from(value, "utf8"), offset);
    forms.set(core, { text: core, variants: BASE64_VARIANTS });
  }
  const hexForm = Buffer.from(value, "utf8").toString("hex");
  const pairs = hexForm.match(/../gu) ?? [];
  const groups = hexForm.match(/.{1,4}/gu) ?? [];
  for (const text of [hexForm, pairs.join(" "), groups.join(" ")]) forms.set(text, { text, variants: HEX_VARIANTS });
  forms.delete("");
  return [...forms.values()];
}

/**
 * The value with each letter in either case, when it has letters: a
 * program that upper- or lower-cases what it prints (a hex or base32 token,
 * a name normalised for display) prints it in no spelling of the value
 * itself. Undefined for a value without cased letters.
 */
export function caseForm(value: string): FixedForm | undefined {
  const variants: Record<string, string> = {};
  for (const char of value) {
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    // One UTF-16 unit each way (not `ß` → `SS`): a fixed form is matched one unit at a time.
    if (lower === upper || char.length !== 1 || lower.length !== 1 || upper.length !== 1) continue;
    variants[char] = `${lower}${upper}`;
  }
  return Object.keys(variants).length === 0 ? undefined : { text: value, variants };
}

/**
 * The base64 characters fully determined by `bytes` when they start `offset`
 * bytes into a 3-byte group: character i covers bits [6i, 6i+6) of the
 * encoded stream, and the value occupies bits [8·offset, 8·(offset+n)).
 */
function base64Core(bytes: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
  const firstBit = 8 * offset;
  const endBit = 8 * (offset + bytes.length);
  const first = Math.ceil(firstBit / 6);
  const last = Math.floor(endBit / 6); // exclusive: character i needs 6i + 6 <= endBit
  return first < last ? encoded.slice(first, last) : "";
}
