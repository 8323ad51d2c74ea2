/**
 * Quoting for command lines Torii prints for the operator to paste (a grant
 * suggestion, the chmod that fixes a file's mode). Display only: Torii never
 * runs a shell.
 */

const SAFE_SHELL_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/u;

/** `word` as one POSIX shell word: unchanged when safe, else single-quoted. */
export function shellQuote(word: string): string {
  return SAFE_SHELL_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
