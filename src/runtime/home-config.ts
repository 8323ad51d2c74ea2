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
 * An entry `$NAME/path` is looked for under the directory the child's variable
 * NAME names instead (relative from the working directory; nothing when NAME is
 * unset or empty): az finds its configuration directory, and the alias
 * extension's table in it, at `AZURE_CONFIG_DIR` when a `.env` sets it.
 *
 * Residual: the check runs when the call is planned; a file written between the
 * check and the CLI's own start is read.
 */
import path from "node:path";
import { entryPresent } from "./working-directory-config.js";

/**
 * The directory Python 3.8+ started with this environment expands `~` to (posixpath/ntpath `expanduser`), absolute
 * from `cwd`: on POSIX HOME (empty: the root; unset: the account's home), on Windows USERPROFILE, else HOMEDRIVE +
 * HOMEPATH (never HOME); undefined when Windows has neither. Where az (knack) stops looking for a working
 * directory's `.azure/config`.
 */
export function pythonHome(
  lookup: (name: string) => string | undefined,
  platform: NodeJS.Platform,
  cwd: string,
  accountHome: () => string | undefined,
): string | undefined {
  if (platform !== "win32") return pythonHomes(lookup, platform, cwd, accountHome)[0];
  const home = windowsProfiles(lookup)[0];
  return home === undefined ? undefined : rootedFrom(cwd, home);
}

/** Python 3.8+'s homes on Windows, in its order: USERPROFILE, then HOMEDRIVE + HOMEPATH; each when set. */
function windowsProfiles(lookup: (name: string) => string | undefined): string[] {
  const homePath = lookup("HOMEPATH");
  return [lookup("USERPROFILE"), homePath === undefined ? undefined : (lookup("HOMEDRIVE") ?? "") + homePath].filter(
    (home): home is string => home !== undefined,
  );
}

/** A home as a path: "" + "/.aws/cli/alias" is the root (of the working directory's drive on Windows); relative from `cwd`. */
function rootedFrom(cwd: string, home: string): string {
  return path.resolve(cwd, home === "" ? path.sep : home);
}

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
  const rooted = (home: string): string => rootedFrom(cwd, home);
  if (platform !== "win32") {
    const home = lookup("HOME");
    // Unset: the password database's entry; without one Python leaves `~` as it is, a directory named `~`.
    return [rooted(home ?? accountHome() ?? "~")];
  }
  // Python 3.8+: USERPROFILE, else HOMEDRIVE + HOMEPATH; older ones (and other runtimes) HOME first. All of them: fail closed.
  const home = lookup("HOME");
  const set = [...windowsProfiles(lookup), ...(home === undefined ? [] : [home])];
  return [...new Set((set.length > 0 ? set : ["~"]).map(rooted))];
}

/** `$NAME/path` split into the variable's name and the path under its directory; undefined for anything else. */
export function splitVariableEntry(entry: string): { readonly name: string; readonly rest: string } | undefined {
  const match = /^\$([A-Za-z_][A-Za-z0-9_]*)[\\/](.+)$/su.exec(entry);
  return match === null ? undefined : { name: match[1] ?? "", rest: match[2] ?? "" };
}

/**
 * The paths of `entries` (relative paths such as `.aws/cli/alias`) present in any of `homes`; an entry
 * `$NAME/path` under `directoryOf(NAME)` instead (the child's variable, absolute), none when that is undefined.
 */
export function homeConfigFound(
  homes: readonly string[],
  entries: readonly string[],
  directoryOf: (name: string) => string | undefined = () => undefined,
): string[] {
  const candidates = entries.flatMap((entry) => {
    const variable = splitVariableEntry(entry);
    if (variable === undefined) return homes.map((home) => path.join(home, entry));
    const directory = directoryOf(variable.name);
    return directory === undefined ? [] : [path.join(directory, variable.rest)];
  });
  return [...new Set(candidates)].filter(entryPresent);
}
