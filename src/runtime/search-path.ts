/**
 * The directories a program name may be looked up in, for Torii and for the
 * children it starts alike.
 *
 * Torii resolves a provider's `command` through PATH itself, but the child
 * then looks names up on its own: `#!/usr/bin/env bash` (every pyenv shim),
 * kubectl plugins (`kubectl foo` runs `kubectl-foo`), a CLI calling `git`. An
 * empty or relative PATH entry (`::`, `.`, `bin`, `~/bin`, which execvp never
 * expands) is searched relative to the child's working directory, the server's
 * own, where anything may have been dropped. So the child's PATH is the very
 * list `resolveExecutable` searches, computed by `trustedSearchPath`, and
 * `resolveExecutable` searches the child's PATH: they cannot disagree.
 */
import path from "node:path";

/** What decides which PATH entries are searched, besides PATH itself. */
export interface SearchPathContext {
  readonly platform: NodeJS.Platform;
  /** The current working directory (the child's too); never searched. */
  readonly cwd: string;
  /** Torii's own directory (where its entry script lives); never searched. */
  readonly selfDir: string;
}

/** The searchable directories of a PATH value, in order, without duplicates. */
export interface DirectorySearch {
  readonly directories: readonly string[];
  /** Counts only: PATH entries are environment values and stay out of messages. */
  readonly summary: () => string;
}

/**
 * A POSIX child always gets a PATH: with none (or an empty one), bash and
 * execvp search the current directory. When no entry survives, it gets the
 * directories `getconf PATH` names, which execvp itself uses for an unset PATH.
 */
export const FALLBACK_POSIX_PATH = "/usr/bin:/bin";

const DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD";

/**
 * The directories of `pathEnv` that may be searched: absolute entries only
 * (on Windows drive-rooted or UNC; `C:x` and `\x` depend on process state),
 * never the current directory or `selfDir`, normalised, first occurrence
 * kept. cmd.exe's quotes around a Windows entry are not part of the name.
 */
export function trustedSearchPath(pathEnv: string | undefined, context: SearchPathContext): DirectorySearch {
  const windows = context.platform === "win32";
  const pathModule = windows ? path.win32 : path.posix;
  const isAbsolute = windows ? isWindowsAbsolute : (entry: string): boolean => path.posix.isAbsolute(entry);
  const excluded = new Set([comparable(context.cwd, pathModule, windows), comparable(context.selfDir, pathModule, windows)]);
  const directories: string[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const rawEntry of (pathEnv ?? "").split(windows ? ";" : ":")) {
    const entry = windows ? rawEntry.replace(/^"(.*)"$/su, "$1") : rawEntry;
    if (entry === "" || entry.includes("\0") || !isAbsolute(entry)) {
      skipped += 1;
      continue;
    }
    const key = comparable(entry, pathModule, windows);
    if (excluded.has(key)) {
      skipped += 1;
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    directories.push(pathModule.normalize(entry));
  }
  return {
    directories,
    summary: () => {
      const searched = `${directories.length} PATH ${directories.length === 1 ? "directory" : "directories"} searched`;
      return skipped === 0 ? searched : `${searched}; ${skipped} skipped (empty or relative entries, the current directory, Torii's own directory)`;
    },
  };
}

/**
 * The PATH value a child receives: `trustedSearchPath` joined again. On POSIX
 * an empty result becomes FALLBACK_POSIX_PATH, never an empty string.
 */
export function childPathValue(pathEnv: string | undefined, context: SearchPathContext): string {
  const { directories } = trustedSearchPath(pathEnv, context);
  if (context.platform === "win32") return directories.join(";");
  return directories.length === 0 ? FALLBACK_POSIX_PATH : directories.join(":");
}

/**
 * The PATHEXT extensions, upper-cased, in order: well-formed `.ext` entries
 * only (a `;;`, a bare `EXE` or `.\x` is dropped); the default list when none is left.
 */
export function parsePathExt(pathExt: string | undefined): readonly string[] {
  const parsed = (pathExt ?? "")
    .split(";")
    .map((extension) => extension.trim().toUpperCase())
    .filter((extension) => /^\.[A-Z0-9_-]+$/u.test(extension));
  const unique = [...new Set(parsed)];
  return unique.length > 0 ? unique : DEFAULT_PATHEXT.split(";");
}

/**
 * Drive-rooted (`C:\…`) or UNC (`\\server\share\…`) only. `\x` (root of the
 * current drive) and `C:x` (relative to that drive's current directory) depend
 * on process state; `\\?\` and `\\.\` skip the normalisation that makes the
 * other checks meaningful.
 */
export function isWindowsAbsolute(candidate: string): boolean {
  if (/^[A-Za-z]:[\\/]/u.test(candidate)) return true;
  return /^[\\/]{2}[^\\/?.]/u.test(candidate);
}

/** A directory in a form where equal directories compare equal (case-insensitive on Windows). */
function comparable(directory: string, pathModule: path.PlatformPath, windows: boolean): string {
  let normalized = pathModule.normalize(directory);
  const root = pathModule.parse(normalized).root;
  while (normalized.length > root.length && /[\\/]$/u.test(normalized)) normalized = normalized.slice(0, -1);
  return windows ? normalized.toUpperCase() : normalized;
}
