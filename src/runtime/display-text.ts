/**
 * Agent-controlled text shown to a human: the tool description field, the
 * approval page and `torii approvals list`. Both front doors use these, so a
 * terminal and a page show the same thing. Control characters (C0 and C1,
 * whose CSI can drive a terminal), line breaks and bidirectional or zero-width
 * marks (which reorder or hide text on screen) never reach the screen raw.
 * `hasUnseen` tells the approval page when a call holds characters a human
 * cannot see, so it offers nothing that would keep them (page-offer.ts,
 * approval/rule-offers.ts).
 */
/** DEL, C1 controls, bidi, zero-width and line-separator marks: everything unsafe but C0. */
const UNSAFE_ABOVE_C0 = "\\u007f-\\u009f\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff";
const UNSAFE = new RegExp(`[\\u0000-\\u001f${UNSAFE_ABOVE_C0}]`, "gu");
/** In JSON text C0 controls are escaped already inside strings and are layout outside them. */
const UNSAFE_IN_JSON = new RegExp(`[${UNSAFE_ABOVE_C0}]`, "gu");

/**
 * The agent's free-text description: unsafe characters become spaces and runs
 * of spaces collapse. Returns undefined when nothing but blanks remains.
 */
export function sanitiseDescription(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const clean = text.replace(UNSAFE, " ").replace(/\s+/gu, " ").trim();
  return clean === "" ? undefined : clean;
}

/** `\u{…}` for a code point, so a character outside printable ASCII cannot pass unseen. */
export function codeEscape(code: number): string {
  return `\\u{${code.toString(16)}}`;
}

/**
 * Text with every character outside printable ASCII and space written as
 * `\u{…}`: exact (nothing is dropped) yet inert on any terminal, and a
 * homoglyph shows as its code.
 */
export function visibleAscii(text: string): string {
  let plain = "";
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    plain += code >= 0x20 && code < 0x7f ? ch : codeEscape(code);
  }
  return plain;
}

/**
 * A value quoted as JSON (so a literal backslash stays distinguishable from an
 * escape) with every character outside printable ASCII made visible.
 */
export function visibleJson(value: unknown): string {
  return visibleAscii(JSON.stringify(value));
}

/**
 * JSON text (as JSON.stringify writes it) with the characters a terminal
 * would act on (C1 controls, bidi and zero-width marks, line separators)
 * written as `\uXXXX` escapes: the same JSON value, safe to print.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}

/**
 * Characters that do not show as themselves on screen: C0 and C1 controls,
 * format characters (zero-width, bidi marks, embeddings, overrides and
 * isolates, the soft hyphen, tag characters), every default-ignorable code
 * point (variation selectors, the combining grapheme joiner, Hangul fillers),
 * separators other than the plain space (no-break, en/em, ideographic, line
 * and paragraph), private-use, unassigned and lone-surrogate code points, and
 * the blank Braille pattern.
 */
const UNSEEN = /(?!\u0020)[\p{Cc}\p{Cf}\p{Z}\p{Default_Ignorable_Code_Point}\p{Variation_Selector}\p{Co}\p{Cn}\p{Cs}\u2800]/u;

const EVERY_UNSEEN = new RegExp(UNSEEN.source, "gu");

/** Whether `text` holds a character that does not show as itself on screen (see UNSEEN): what a human reads is then not all there is. */
export function hasUnseen(text: string): boolean {
  return UNSEEN.test(text);
}

/**
 * `text` with only the characters that do not show on screen written as
 * `\u{…}`: for text that mixes Torii's own words (whose `…` and `—` stay as
 * they are) with what an agent sent (a policy reason quoting a command word).
 */
export function unseenEscapes(text: string): string {
  return text.replace(EVERY_UNSEEN, (ch) => codeEscape(ch.codePointAt(0) ?? 0));
}

/**
 * `text` with `unseenEscapes` applied line by line, so its own line breaks
 * stay: for an operator message that quotes a file an agent wrote.
 */
export function unseenEscapesByLine(text: string): string {
  return text
    .split("\n")
    .map((line) => unseenEscapes(line))
    .join("\n");
}
