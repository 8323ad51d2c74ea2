/**
 * The shapes the guard's shell reader produces, and the one error it throws.
 *
 * A word keeps its text after quote removal, with every expansion (`$x`,
 * `${…}`, `$(…)`, backticks, arithmetic) replaced by COMPUTED: what the shell
 * would put there is unknown, so a program name holding one cannot be judged.
 */

/** Stands for a part of a word the shell computes at run time (never in a command line: NUL cannot be passed). */
export const COMPUTED = "\u0000";

export interface ShellWord {
  /** The word after quote removal; COMPUTED where an expansion stands. */
  readonly text: string;
  /** Some part of it was quoted or escaped (so it is no reserved word, no assignment, no glob). */
  readonly quoted: boolean;
  /** It holds an unquoted glob or brace expansion (`*`, `?`, `[`, `{a,b}`), so its final text is unknown. */
  readonly glob: boolean;
  /** It is `NAME=value` with an unquoted name: before the program name, an assignment, not a command. */
  readonly assignment: boolean;
}

/** Where a command's standard input comes from, as far as the guard can tell. */
export type CommandInput = { readonly kind: "pipe" } | { readonly kind: "text"; readonly text: string } | undefined;

/** One simple command: its words (assignments and reserved words included) and its input. */
export interface SimpleCommand {
  readonly words: ShellWord[];
  input: CommandInput;
}

/** A command line the guard cannot read with certainty; it blocks rather than guess. */
export class ShellParseError extends Error {
  override readonly name = "ShellParseError";
}

/** True when the word's text contains an expansion. */
export function isComputed(word: ShellWord): boolean {
  return word.text.includes(COMPUTED);
}
