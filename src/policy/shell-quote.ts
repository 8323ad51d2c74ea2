/**
 * Quoting for command lines Torii prints for the operator to paste (a grant
 * suggestion, the chmod that fixes a file's mode). Display only: Torii never
 * runs a shell.
 *
 * A grant suggestion quotes the agent's argv, and the operator pastes it into
 * whatever shell they use. Inside single quotes POSIX shells take every
 * character as it is, but fish reads `\\` and `\'` there as escapes: the POSIX
 * spelling `'a\'\''; cmd; #'` of the token `a\'; cmd; #` is the word `a''` and
 * then `cmd` in fish (red team 22, approval). So a backslash and a single quote
 * are never written inside single quotes: each stands outside them, escaped
 * (`\\`, `\'`), which sh, bash, zsh and fish all read as the character itself.
 */

// Left bare: words of these characters, except where a shell expands a bare word's start: zsh reads `=ls` as the
// path of `ls` (EQUALS) and fish `%self` as its process id, so a word starting with `=` or `%` is quoted.
const SAFE_SHELL_WORD = /^[A-Za-z0-9_@+:,./-][A-Za-z0-9_@%+=:,./-]*$/u;

/** `word` as one shell word that sh, bash, zsh and fish read alike: unchanged when safe, else single-quoted runs. */
export function shellQuote(word: string): string {
  if (SAFE_SHELL_WORD.test(word)) return word;
  if (word === "") return "''";
  // Runs without `\` or `'` go inside single quotes; each `\` and `'` stands alone, backslash-escaped.
  return word
    .split(/([\\'])/u)
    .filter((part) => part !== "")
    .map((part) => (part === "\\" || part === "'" ? `\\${part}` : `'${part}'`))
    .join("");
}
