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
 * refuse or hold more: a value equal to a locked word costs a refusal, never
 * an allowed call.
 */

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
