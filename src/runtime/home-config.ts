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
 * `~` is found as Python's `os.path.expanduser` finds it in the child's
 * environment (pythonHomes), not as Torii would: on POSIX an empty `HOME` is
 * the root and an unset one the account's home in the password database; on
 * Windows Python reads `USERPROFILE` (then `HOMEDRIVE` + `HOMEPATH`), never
 * `HOME` since 3.8, so every one of them is checked. A relative one is taken
 * from the child's working directory.
 *
 * Residual: the check runs when the call is planned; a file written between the
 * check and the CLI's own start is read.
 */
import path from "node:path";
import { entryPresent } from "./working-directory-config.js";

/**
 * The directories a Python CLI started with this environment may expand `~` to
 * (posixpath/ntpath `expanduser`), absolute from `cwd` (the child's working directory).
 * `lookup` reads the child's environment; `accountHome` the password database.
 */
export function pythonHomes(
  lookup: (name: string) => string | undefined,
  platform: NodeJS.Platform,
  cwd: string,
  accountHome: () => string | undefined,
): string[] {
  // "" + "/.aws/cli/alias": an empty home is the root (of the working directory's drive on Windows).
  const rooted = (home: string): string => path.resolve(cwd, home === "" ? path.sep : home);
  if (platform !== "win32") {
    const home = lookup("HOME");
    // Unset: the password database's entry; without one Python leaves `~` as it is, a directory named `~`.
    return [rooted(home ?? accountHome() ?? "~")];
  }
  // Python 3.8+: USERPROFILE, else HOMEDRIVE + HOMEPATH; older ones (and other runtimes) HOME first. All of them: fail closed.
  const homePath = lookup("HOMEPATH");
  const candidates = [lookup("USERPROFILE"), homePath === undefined ? undefined : (lookup("HOMEDRIVE") ?? "") + homePath, lookup("HOME")];
  const set = candidates.filter((home): home is string => home !== undefined);
  return [...new Set((set.length > 0 ? set : ["~"]).map(rooted))];
}

/** The paths of `entries` (relative paths such as `.aws/cli/alias`) present in any of `homes`. */
export function homeConfigFound(homes: readonly string[], entries: readonly string[]): string[] {
  return homes.flatMap((home) => entries.map((entry) => path.join(home, entry))).filter(entryPresent);
}
