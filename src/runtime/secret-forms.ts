/**
 * The spellings of one secret value that a CLI may print, for the redactor:
 *
 * - as is;
 * - JSON-escaped, as `JSON.stringify` writes it, with non-ASCII as `\uXXXX`
 *   (Python's default) and with `/` as `\/` (PHP's default);
 * - base64, standard and URL-safe alphabet. Inside a longer encoded blob the
 *   value starts at byte offset 0, 1 or 2 of a 3-byte group, and each offset
 *   gives different characters; only the characters whose 6 bits all come from
 *   the value are used, so the form matches whatever surrounds it;
 * - URL-encoded (`encodeURIComponent`, `+` for spaces as in forms, lower-case hex).
 *
 * Pure: no I/O.
 */

/** Every distinct spelling of `value` (the value itself first). */
export function secretForms(value: string): readonly string[] {
  const forms = new Set<string>([value]);
  for (const json of jsonForms(value)) forms.add(json);
  for (const offset of [0, 1, 2]) {
    const core = base64Core(Buffer.from(value, "utf8"), offset);
    forms.add(core);
    forms.add(core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  const url = encodeURIComponent(value);
  forms.add(url);
  forms.add(url.replaceAll("%20", "+"));
  forms.add(url.replace(/%[0-9A-F]{2}/gu, (escape) => escape.toLowerCase()));
  forms.delete("");
  return [...forms];
}

function jsonForms(value: string): readonly string[] {
  const plain = JSON.stringify(value).slice(1, -1);
  const ascii = plain.replace(/[\u0080-\uffff]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return [plain, ascii, plain.replaceAll("/", "\\/"), ascii.replaceAll("/", "\\/")];
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
