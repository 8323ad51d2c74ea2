/**
 * The directories a program name may be looked up in, for Torii and for the
 * children it starts alike.
 *
 * Torii resolves a provider's `command` through PATH itself, but the child
 * then looks names up on its own: `#!/usr/bin/env bash` (every pyenv shim),
 * kubectl plugins (`kubectl foo` runs `kubectl-foo`), a CLI calling `git`. So
 * the child's PATH is the very list `resolveExecutable` searches, computed by
 * `trustedSearchPath`, and `resolveExecutable` searches the child's PATH: they
 * cannot disagree.
 *
 * No entry may be one the agent can write to. An empty or relative entry
 * (`::`, `.`, `bin`, `~/bin`, which execvp never expands) is searched from the
 * working directory, the agent's project. An absolute entry may lead there
 * too: venv activation, direnv's `PATH_add` and npx put `<project>/.venv/bin`
 * or `<project>/node_modules/.bin` on the client's PATH, and a link may spell
 * the project another way. So entries are compared by their real paths, and
 * one at or below the working directory (or Torii's own code directory) is
 * dropped, and so is one whose resolution steps on such a place on its way
 * elsewhere (a link the agent may repoint), and one in a shared temporary
 * directory (`/tmp`, `$TMPDIR`: anyone can create it first). Every other entry
 * must pass the configuration's trust rule through `SearchTrust`
 * (config/search-trust.ts): it, every directory above it and every link on
 * the way belong to this user or root, and the directories are not writable
 * by group or others, a sticky directory above it excepted; a missing entry is
 * dropped (anyone able to write the directory above could create it later).
 * Windows real paths are compared without their `\\?\` prefix.
 */
import path from "node:path";
import { isUncomparableWindowsPath, withoutWin32FilePrefix } from "./windows-final-path.js";

/**
 * What the filesystem says about an entry or a program: its real path (and the
 * directories and links its resolution stepped on, when known), a trust
 * problem, or nothing there.
 */
export type TrustVerdict = { readonly real: string; readonly steps?: readonly string[] } | { readonly problem: string } | { readonly missing: true };

/**
 * The filesystem side of the search, injected because the trust rule lives in
 * config/ (config/search-trust.ts builds the real one). One per computation:
 * it may remember what it found for milliseconds, never from one call to the next.
 */
export interface SearchTrust {
  /** The real path of `target` (links resolved), or undefined when it cannot be resolved. */
  realPath(target: string): string | undefined;
  /** Holds `target` (and every directory its resolution passes through) to the trust rule. */
  inspect(target: string, kind: "directory" | "file"): TrustVerdict;
  /**
   * Shared temporary directories (`/tmp`, `/var/tmp`, `/dev/shm`, `$TMPDIR`;
   * on Windows `%TEMP%`, `%TMP%`, `%SystemRoot%\Temp`): never searched, nor
   * anything below them, whatever their mode, since anyone may create a
   * `kubectl` there before the operator does. Compared by real path too.
   */
  readonly sharedTemporary: readonly string[];
  /**
   * The operator's `path.trusted_directories` (settings.yaml) this trust was
   * built with: in and below them the trust rule accepts group write. Carried
   * here so that whatever remembers a verdict judged by this trust keys on, and
   * observes, the very list the verdict was judged with.
   */
  readonly trustedDirectories: readonly string[];
}

/** What decides which PATH entries are searched, besides PATH itself. */
export interface SearchPathContext {
  readonly platform: NodeJS.Platform;
  /** The current working directory (the child's too); never searched, nor anything below it. */
  readonly cwd: string;
  /** Torii's own directory (where its entry script lives); never searched, nor anything below it. */
  readonly selfDir: string;
  /** The trust rule and real paths of the filesystem. */
  readonly trust: SearchTrust;
}

/** A PATH entry (or a program found in one) left out, and why: for the operator (server log, doctor), never for the agent. */
export interface SkippedEntry {
  readonly entry: string;
  readonly reason: string;
}

/** The searchable directories of a PATH value, in order, without duplicates. */
export interface DirectorySearch {
  readonly directories: readonly string[];
  /** Absolute entries left out, named, with the reason. PATH entries are environment values: keep them out of messages to the agent. */
  readonly skipped: readonly SkippedEntry[];
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

/** Why an entry at or below one of the excluded places is left out. */
export const BELOW_WORKING_DIRECTORY = "at or below the working directory, which the agent can write to";
const TORII_OWN_DIRECTORY = "Torii's own code directory";
/** Why an entry in a shared temporary directory is left out. */
export const IN_SHARED_TEMPORARY = "in a shared temporary directory, where anyone can create files first";
const UNCOMPARABLE_REAL_PATH = "resolves to a Windows device or volume path that cannot be compared with the working directory";
/** Why a missing entry is left out (the operator's reports omit it: common and harmless). */
export const MISSING_ENTRY = "does not exist";

/**
 * The directories of `pathEnv` that may be searched: absolute entries only
 * (on Windows drive-rooted or UNC; `C:x` and `\x` depend on process state),
 * existing, trusted, and by their real paths neither at or below the current
 * directory nor at or below `selfDir`; normalised, first occurrence kept.
 * cmd.exe's quotes around a Windows entry are not part of the name.
 */
export function trustedSearchPath(pathEnv: string | undefined, context: SearchPathContext): DirectorySearch {
  const windows = context.platform === "win32";
  const pathModule = windows ? path.win32 : path.posix;
  const isAbsolute = windows ? isWindowsAbsolute : (entry: string): boolean => path.posix.isAbsolute(entry);
  const outOfReach = agentReach(context);
  const directories: string[] = [];
  const skipped: SkippedEntry[] = [];
  const seen = new Set<string>();
  let empty = 0;
  for (const rawEntry of (pathEnv ?? "").split(windows ? ";" : ":")) {
    const entry = windows ? rawEntry.replace(/^"(.*)"$/su, "$1") : rawEntry;
    if (entry === "") {
      empty += 1;
      continue;
    }
    if (entry.includes("\0") || !isAbsolute(entry)) {
      skipped.push({ entry, reason: "not an absolute path, so it would be searched from the working directory" });
      continue;
    }
    const key = comparable(entry, pathModule, windows);
    if (seen.has(key)) continue;
    seen.add(key);
    const normalized = pathModule.normalize(entry);
    if (windows && strippedByWindows(normalized)) {
      skipped.push({ entry: normalized, reason: STRIPPED_COMPONENT });
      continue;
    }
    const reason = outOfReach(normalized, "directory");
    if (reason !== undefined) skipped.push({ entry: normalized, reason });
    else directories.push(normalized);
  }
  return {
    directories,
    skipped,
    summary: () => {
      const searched = `${directories.length} PATH ${directories.length === 1 ? "directory" : "directories"} searched`;
      const count = empty + skipped.length;
      return count === 0
        ? searched
        : `${searched}; ${count} skipped (empty, relative or missing entries, the working directory or below it, Torii's own directory, entries others can write to, temporary directories)`;
    },
  };
}

/**
 * Why a Windows entry with a component ending in a dot or a space is left out:
 * Windows strips them when it opens the path (`C:\work.` is `C:\work`), while
 * the comparisons with the working directory and Torii's own directory, and the
 * real path Node resolves on Windows, keep them; so the entry could name the
 * project without being recognised (the CVE-2024-36138 class, as for commands).
 */
const STRIPPED_COMPONENT = "a path component ends in a dot or a space, which Windows strips, so it cannot be compared with the working directory";

/** Whether a normalised Windows path has a component (below its root) ending in a dot or a space. */
function strippedByWindows(normalized: string): boolean {
  const { root } = path.win32.parse(normalized);
  return normalized
    .slice(root.length)
    .split(/[\\/]/u)
    .some((component) => /[. ]$/u.test(component));
}

/**
 * A check of an absolute, normalised path (a PATH entry, or a program found
 * through one) against the agent's reach: the reason to leave it out, or
 * undefined when it may be used. The excluded places are resolved once.
 */
export function agentReach(context: SearchPathContext): (target: string, kind: "directory" | "file") => string | undefined {
  const windows = context.platform === "win32";
  const pathModule = windows ? path.win32 : path.posix;
  const place = (directory: string): readonly string[] => {
    const lexical = comparable(directory, pathModule, windows);
    const real = context.trust.realPath(directory);
    return real === undefined ? [lexical] : [lexical, comparable(real, pathModule, windows)];
  };
  const excluded: readonly (readonly [readonly string[], string])[] = [
    [place(context.cwd), BELOW_WORKING_DIRECTORY],
    [place(context.selfDir), TORII_OWN_DIRECTORY],
    [context.trust.sharedTemporary.flatMap(place), IN_SHARED_TEMPORARY],
  ];
  /** Why `candidate` (comparable) lies in an excluded place, or undefined. */
  const exclusion = (candidate: string): string | undefined =>
    excluded.find(([places]) => places.some((where) => atOrBelow(candidate, where, pathModule)))?.[1];
  return (target, kind) => {
    const lexical = exclusion(comparable(target, pathModule, windows));
    if (lexical !== undefined) return lexical;
    const verdict = context.trust.inspect(target, kind);
    if ("missing" in verdict) return MISSING_ENTRY;
    if ("problem" in verdict) return verdict.problem;
    const real = comparable(verdict.real, pathModule, windows);
    if (windows && isUncomparableWindowsPath(real)) return UNCOMPARABLE_REAL_PATH;
    const ofReal = exclusion(real);
    if (ofReal !== undefined) return `${ofReal} (through a link)`;
    // A link elsewhere that passes through such a place on the way (`/home/u/bin` -> `<project>/tools/../../bin`,
    // or through a link the agent may repoint) leads wherever that place's owner decides next time.
    for (const step of verdict.steps ?? []) {
      const onTheWay = exclusion(comparable(step, pathModule, windows));
      if (onTheWay !== undefined) return `its resolution passes through ${step}, ${onTheWay}`;
    }
    return undefined;
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

/**
 * Whether `candidate` is `place` or below it; both comparable(). A place that
 * is a filesystem root (a server started in `/`, as some GUI clients do) holds
 * every path, yet is no project: then only the root itself is left out.
 */
function atOrBelow(candidate: string, place: string, pathModule: path.PlatformPath): boolean {
  if (candidate === place) return true;
  if (pathModule.parse(place).root === place) return false;
  return candidate.startsWith(place + pathModule.sep);
}

/**
 * A directory in a form where equal directories compare equal (on Windows
 * case-insensitive, and without the `\\?\` prefix a final path may carry).
 */
function comparable(directory: string, pathModule: path.PlatformPath, windows: boolean): string {
  let normalized = pathModule.normalize(windows ? withoutWin32FilePrefix(directory) : directory);
  const root = pathModule.parse(normalized).root;
  while (normalized.length > root.length && /[\\/]$/u.test(normalized)) normalized = normalized.slice(0, -1);
  return windows ? normalized.toUpperCase() : normalized;
}
