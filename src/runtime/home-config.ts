/**
 * Configuration a CLI reads from the child's HOME that changes what the call's
 * words mean.
 *
 * The AWS CLI reads command aliases from `~/.aws/cli/alias` (awscli/alias.py,
 * `os.path.expanduser`, so the child's HOME) and expands them before it parses
 * anything: an alias may take any name, a built-in one too (`s3 = ...`), and
 * stand for another command (`setr = configure set region ...`) or, starting
 * with `!`, for a shell line the call's words are appended to. Torii decides on
 * the words the agent sent, so its rules, locked commands and file writes would
 * judge the alias's name while the CLI runs what the file says. No variable
 * switches the lookup off, so a provider names such files
 * (`runtime.home_config`) and a call is refused while one exists. Any kind of
 * entry counts, and one that cannot be inspected counts as present: fail closed.
 *
 * Residual: the check runs when the call is planned; a file written between the
 * check and the CLI's own start is read.
 */
import path from "node:path";
import { entryPresent } from "./working-directory-config.js";

/** The paths of `entries` (relative paths such as `.aws/cli/alias`) present in `home`; empty when none is or HOME is unset. */
export function homeConfigFound(home: string | undefined, entries: readonly string[]): string[] {
  if (home === undefined || home === "" || entries.length === 0) return [];
  return entries.map((entry) => path.join(path.resolve(home), entry)).filter(entryPresent);
}
