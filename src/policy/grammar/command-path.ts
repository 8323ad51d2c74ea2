/**
 * Where a command path sits in a call's words (its body tokens that are not
 * options), read as the CLIs' sub-command parsers read it.
 *
 * The first two words are contiguous: the top-level parser and a service's
 * (or command group's) parser take no option of unknown arity before the next
 * word. Below them a sub-command may follow its parent command's own options,
 * whose values Torii cannot tell from words: awscli's CodeDeploy sub-commands
 * are attached to every command named `deploy`, so `aws cloudformation deploy
 * --template-file t --stack-name s install` runs `install` with `t` and `s`
 * between the path's words. Each further word of the path is therefore
 * matched at its next occurrence. Reading a path in more calls can only
 * refuse or hold more. Where the grammar knows a parent command's options
 * (`argv.parent_options`, generated from the CLI), the value of one that takes
 * a value is no word (`cloudformation deploy --stack-name install` runs no
 * `install`: argparse gives `install` to `--stack-name`); an option it does not
 * know, or an ambiguous abbreviation, skips nothing, so a value equal to a
 * locked word there still costs a refusal, never an allowed call.
 */
import type { ParentOptions } from "./types.js";

/** How many leading words of a path must follow each other directly. */
const CONTIGUOUS_WORDS = 2;

/**
 * The index just after the last word of `path` in `words`, or -1 when the
 * words do not run that path. An empty path matches at 0.
 */
export function commandPathEnd(words: readonly string[], path: readonly string[]): number {
  const head = Math.min(CONTIGUOUS_WORDS, path.length);
  for (let i = 0; i < head; i += 1) if (words[i] !== path[i]) return -1;
  let at = head;
  for (const word of path.slice(head)) {
    const found = words.indexOf(word, at);
    if (found === -1) return -1;
    at = found + 1;
  }
  return at;
}

/** Whether the words run `path` (commandPathEnd finds it). */
export function runsCommandPath(words: readonly string[], path: readonly string[]): boolean {
  return commandPathEnd(words, path) !== -1;
}

function isOptionToken(token: string): boolean {
  return token.startsWith("-") && token !== "-";
}

/**
 * Whether `token` (an option with no glued `=value`) names an option of
 * `parent` that takes a value: its full name, or an abbreviation that names
 * only that option (argparse's allow_abbrev). Unknown or ambiguous: false.
 */
function takesValue(parent: ParentOptions, token: string): boolean {
  if (token.includes("=")) return false;
  if (parent.values.includes(token)) return true;
  if (parent.switches.includes(token)) return false;
  const named = [...parent.values, ...parent.switches].filter((name) => name.startsWith(token));
  return named.length === 1 && parent.values.includes(named[0] as string);
}

/**
 * The indexes of the `body` tokens the CLI's sub-command parsers read as
 * words: every token that is not an option, less the value of each option a
 * parent command in `parents` takes a value with, between the parent's path
 * and the first word after it (its sub-command; after it the sub-command's
 * own parser reads, whose options Torii does not know).
 */
export function commandWordIndexes(body: readonly string[], parents: readonly ParentOptions[]): number[] {
  const plain = body.flatMap((token, index) => (isOptionToken(token) ? [] : [index]));
  const values = new Set<number>();
  for (const parent of parents) {
    const end = commandPathEnd(
      plain.map((index) => body[index] as string),
      parent.command,
    );
    if (end === -1) continue;
    for (let at = (plain[end - 1] as number) + 1; at < body.length && isOptionToken(body[at] as string); at += 1) {
      const next = body[at + 1];
      if (next !== undefined && !isOptionToken(next) && takesValue(parent, body[at] as string)) {
        values.add(at + 1);
        at += 1;
      }
    }
  }
  return plain.filter((index) => !values.has(index));
}

/** The words of `body` (commandWordIndexes), in order. */
export function commandWordsOf(body: readonly string[], parents: readonly ParentOptions[]): string[] {
  return commandWordIndexes(body, parents).map((index) => body[index] as string);
}
