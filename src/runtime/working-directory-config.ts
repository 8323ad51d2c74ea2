/**
 * Configuration a CLI reads from its working directory and every parent of it.
 *
 * The child runs in the agent's project, which the agent (or a prompt
 * injection) can write. Some CLIs look there for configuration: az (knack)
 * reads `.azure/config` in the working directory and each parent, and takes
 * its `[defaults]` (`group`, `location`, …) as the value of an argument the call
 * left out, so a planted file chooses the resource group a call acts on. No
 * variable switches that lookup off, so a provider names such files
 * (`runtime.working_directory_config`) and a call is refused while one exists.
 * For az this is defence in depth: its `runtime.fixed_env` fixes the
 * `AZURE_DEFAULTS_<KEY>` variables empty, which knack reads before any file
 * (docs/environment.md); the check is the only guard for a key that list misses.
 *
 * The walk stops below the child's HOME: files there and above it (az's own
 * `~/.azure/config`) are the operator's, and az stops there too when its
 * configuration directory is the default one. Outside HOME it goes up to the
 * filesystem root. Any kind of entry counts (a directory, a dangling link:
 * the agent could complete it later), and an entry that cannot be inspected
 * counts as present: fail closed.
 *
 * Residual: the check runs when the call is planned; a file written between
 * the check and the CLI's own start is read (for az, only for a `[defaults]`
 * key its fixed_env does not name: docs/environment.md).
 */
import { lstatSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * The paths of `entries` (relative paths such as `.azure/config`) present in
 * `cwd` or one of its parents, below `home`; empty when none is.
 */
export function workingDirectoryConfigFound(cwd: string, home: string | undefined, entries: readonly string[]): string[] {
  if (entries.length === 0) return [];
  const found: string[] = [];
  const stops = home === undefined || home === "" ? new Set<string>() : homeSpellings(home);
  let directory = path.resolve(cwd);
  for (;;) {
    if (stops.has(directory)) break;
    for (const entry of entries) {
      const candidate = path.join(directory, entry);
      if (entryPresent(candidate)) found.push(candidate);
    }
    const parent = path.dirname(directory);
    if (parent === directory) break;
    directory = parent;
  }
  return found;
}

/**
 * HOME as written and as its real path: the working directory is a real path
 * (the kernel's), and a HOME reached through a link (`/home` -> `/usr/home`)
 * would otherwise never be met, and the operator's own file above the project
 * would refuse every call.
 */
function homeSpellings(home: string): Set<string> {
  const spellings = new Set([path.resolve(home)]);
  try {
    spellings.add(realpathSync.native(home));
  } catch {
    // No such HOME: only its spelling can be met.
  }
  return spellings;
}

/** True unless lstat says the path does not exist (ENOENT, or a parent that is not a directory): fail closed. */
export function entryPresent(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}
