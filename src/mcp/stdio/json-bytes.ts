/**
 * The bytes of JSON text that the transport's readers walk without parsing
 * (./top-level-id.ts for a line too long to keep, ./member-text.ts for a
 * member's text as written): one home, so the two agree on what is
 * whitespace and where a scalar ends.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;

/** JSON's four whitespace bytes (space, tab, LF, CR); undefined (past the end) is none. */
export function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** A byte that ends a scalar (number, true, false, null): whitespace, `,`, `}` or `]`. */
export function isDelimiter(byte: number | undefined): boolean {
  return isWhitespace(byte) || byte === COMMA || byte === 0x7d || byte === 0x5d;
}
