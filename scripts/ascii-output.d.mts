/** A non-ASCII character outside any comment of a built file. */
export class NonAsciiCodeError extends Error {
  constructor(file: string, line: number, column: number, character: string);
}
/** `text` with non-ASCII characters in comments replaced by ASCII of the same UTF-16 length; throws NonAsciiCodeError for one elsewhere. */
export function asciiOnly(text: string, file: string): string;
/** Rewrites every .js file directly in `directories` through asciiOnly. */
export function keepOutputAscii(directories: readonly string[]): void;
