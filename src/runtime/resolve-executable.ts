/**
 * Turns a provider's `command` into the one absolute file Torii will launch.
 *
 * A bare name is looked up the way a careful shell would, minus the traps:
 * PATH entries that are empty or relative (including `.`), the current
 * directory and anything below it, Torii's own directory and entries others
 * can write to are never searched (search-path.ts), so nothing dropped into
 * the agent's project or next to Torii can stand in for `aws`. The file found
 * is held to the same rule by its real path (a link in `/usr/local/bin` into
 * the project, a group-writable `aws`), and so is an absolute command. On
 * Windows the search walks PATH × PATHEXT itself, because libuv (and `which`)
 * would try the current directory first for a bare name; the result says
 * whether the file is a batch script, which cmd.exe re-parses and so needs its
 * own, stricter launch path (see batch-arguments.ts).
 *
 * Errors name the command, never PATH or PATHEXT: both are environment values
 * and error messages travel to the agent and the audit log.
 */
import { accessSync, constants } from "node:fs";
import path from "node:path";
import { isFile as fileExists } from "./file-kind.js";
import { agentReach, isWindowsAbsolute, parsePathExt, trustedSearchPath, type DirectorySearch, type SearchTrust, type SkippedEntry } from "./search-path.js";

/** `binary`: spawned directly. `batch`: a Windows `.bat`/`.cmd`, runnable only through cmd.exe. */
export type ExecutableKind = "binary" | "batch";

/** The absolute file a command resolved to. */
export interface ResolvedExecutable {
  readonly path: string;
  readonly kind: ExecutableKind;
}

export interface ResolveExecutableOptions {
  /** The PATH value to search (the server's own, or the child env's). */
  readonly pathEnv: string | undefined;
  /** Windows only: the PATHEXT value; `.COM;.EXE;.BAT;.CMD` when absent or empty. */
  readonly pathExt?: string | undefined;
  readonly platform: NodeJS.Platform;
  /** Torii's own directory (where its entry script lives); never searched. */
  readonly selfDir: string;
  /** The current working directory; never searched, nor anything below it. */
  readonly cwd: string;
  /** The trust rule and real paths of the filesystem (config/search-trust.ts). */
  readonly trust: SearchTrust;
  /** Whether a regular file exists at the path (follows symlinks). Injected by tests. */
  readonly isFile?: ((candidate: string) => boolean) | undefined;
  /** POSIX only: whether the file is executable by this process. Injected by tests. */
  readonly isExecutable?: ((candidate: string) => boolean) | undefined;
  /**
   * Told each file before it is looked at (its kind, then whether it may be executed): a memo of the
   * resolution (pipeline/remembered-executable.ts) records what the answer depended on.
   */
  readonly probed?: ((candidate: string) => void) | undefined;
}

/** The command names no file that could be launched. */
export class ExecutableNotFoundError extends Error {
  override readonly name = "ExecutableNotFoundError";
  readonly command: string;
  /** PATH entries and matching programs left out, named, for the operator (never in the message, which may reach the agent). */
  readonly skipped: readonly SkippedEntry[];

  constructor(command: string, detail: string, skipped: readonly SkippedEntry[] = []) {
    super(`executable ${JSON.stringify(command)} not found: ${detail}`);
    this.command = command;
    this.skipped = skipped;
  }
}

/** The command is refused by shape, before or after the search. */
export class ExecutableRefusedError extends Error {
  override readonly name = "ExecutableRefusedError";
  readonly command: string;
  readonly reason: string;

  constructor(command: string, reason: string) {
    super(`executable ${JSON.stringify(command)} refused: ${reason}`);
    this.command = command;
    this.reason = reason;
  }
}

const WINDOWS_BINARY_EXTENSIONS = new Set([".COM", ".EXE"]);
const WINDOWS_BATCH_EXTENSIONS = new Set([".BAT", ".CMD"]);
// Characters Windows forbids in file names, plus control characters.
// eslint-disable-next-line no-control-regex
const WINDOWS_FORBIDDEN_NAME_CHARACTERS = /[<>:"|?*\u0000-\u001f]/u;
// Device names that open a device, whatever extension follows (COM and LPT take superscript digits too).
const WINDOWS_RESERVED_NAMES = /^(?:CON|PRN|AUX|NUL|COM[0-9\u00B9\u00B2\u00B3]|LPT[0-9\u00B9\u00B2\u00B3]|CONIN\$|CONOUT\$)(?:\..*)?$/iu;

/**
 * Resolves `command` to an absolute file.
 *
 * - An absolute command is used as is: it must be an existing regular file
 *   (on POSIX also executable).
 * - A bare name is searched through the PATH entries in order, skipping empty
 *   and relative entries, the current directory and `selfDir`.
 * - Anything else holding a path separator (`bin/aws`, `./aws`) is refused.
 *
 * On Windows each PATH directory is tried with the name as given when it
 * already ends in a PATHEXT extension, then with each PATHEXT extension in
 * order; comparisons ignore case; names ending in a dot or a space are refused
 * (Windows strips them, the CVE-2024-36138 bypass).
 *
 * @throws ExecutableRefusedError for a command of a refused shape.
 * @throws ExecutableNotFoundError when no file matches.
 */
export function resolveExecutable(command: string, options: ResolveExecutableOptions): ResolvedExecutable {
  const windows = options.platform === "win32";
  const lookAt = options.isFile ?? fileExists;
  const { probed } = options;
  // Every candidate's kind is looked at before anything else about it: the one place to tell `probed`.
  const isFile = (candidate: string): boolean => {
    probed?.(candidate);
    return lookAt(candidate);
  };
  const isExecutable = windows ? (): boolean => true : (options.isExecutable ?? isExecutableByProcess);

  if (command === "") throw new ExecutableRefusedError(command, "the command is empty");
  if (command.includes("\0")) throw new ExecutableRefusedError(command, "the command contains a NUL character");

  if (windows) {
    const absolute = isWindowsAbsolute(command);
    checkWindowsCommandShape(command, absolute);
    if (absolute) {
      const file = path.win32.normalize(command);
      if (!isFile(file)) throw new ExecutableNotFoundError(command, "no such file");
      refuseOutOfReach(command, file, options);
      return { path: file, kind: windowsKind(command, file) };
    }
    return searchWindowsPath(command, options, isFile);
  }

  if (path.posix.isAbsolute(command)) {
    const file = path.posix.normalize(command);
    if (!isFile(file)) throw new ExecutableNotFoundError(command, "no such file");
    if (!isExecutable(file)) throw new ExecutableRefusedError(command, "the file is not executable");
    refuseOutOfReach(command, file, options);
    return { path: file, kind: "binary" };
  }
  if (command.includes("/")) throw relativePathRefusal(command);
  if (command === "." || command === "..") throw new ExecutableRefusedError(command, "not a file name");
  return searchPosixPath(command, options, isFile, isExecutable);
}

function searchPosixPath(
  name: string,
  options: ResolveExecutableOptions,
  isFile: (candidate: string) => boolean,
  isExecutable: (candidate: string) => boolean,
): ResolvedExecutable {
  const search = trustedSearchPath(options.pathEnv, options);
  const programs = programCheck(options);
  for (const directory of search.directories) {
    const candidate = path.posix.join(directory, name);
    // Like a shell, a file we may not execute does not end the search; nor does one we may not trust.
    if (isFile(candidate) && isExecutable(candidate) && programs.accepts(candidate)) return { path: candidate, kind: "binary" };
  }
  throw notFound(name, search, programs.skipped);
}

function searchWindowsPath(name: string, options: ResolveExecutableOptions, isFile: (candidate: string) => boolean): ResolvedExecutable {
  const extensions = parsePathExt(options.pathExt);
  const ownExtension = path.win32.extname(name).toUpperCase();
  const names = [...(extensions.includes(ownExtension) ? [name] : []), ...extensions.map((extension) => name + extension)];
  const search = trustedSearchPath(options.pathEnv, options);
  const programs = programCheck(options);
  for (const directory of search.directories) {
    for (const candidateName of names) {
      const candidate = path.win32.join(directory, candidateName);
      if (isFile(candidate) && programs.accepts(candidate)) return { path: candidate, kind: windowsKind(name, candidate) };
    }
  }
  throw notFound(name, search, programs.skipped);
}

/** Programs found in searched directories, held to the rule of the directories by their real paths; the ones left out, named. */
function programCheck(options: ResolveExecutableOptions): { accepts(candidate: string): boolean; readonly skipped: SkippedEntry[] } {
  const outOfReach = agentReach(options);
  const skipped: SkippedEntry[] = [];
  return {
    skipped,
    accepts(candidate) {
      const reason = outOfReach(candidate, "file");
      if (reason !== undefined) skipped.push({ entry: candidate, reason });
      return reason === undefined;
    },
  };
}

function notFound(name: string, search: DirectorySearch, programs: readonly SkippedEntry[]): ExecutableNotFoundError {
  const refused = programs.length === 0 ? "" : `; ${programs.length} matching program(s) refused (in the working directory, or others can write to them)`;
  return new ExecutableNotFoundError(name, search.summary() + refused, [...search.skipped, ...programs]);
}

/**
 * An absolute command is the operator's choice, but not one the agent may
 * replace: it is refused below the working directory or when others can write it.
 */
function refuseOutOfReach(command: string, file: string, options: ResolveExecutableOptions): void {
  const reason = agentReach(options)(file, "file");
  if (reason !== undefined) throw new ExecutableRefusedError(command, reason);
}

function checkWindowsCommandShape(command: string, absolute: boolean): void {
  if (/^[\\/]{2}[?.][\\/]/u.test(command)) {
    throw new ExecutableRefusedError(command, "device namespace paths (\\\\?\\, \\\\.\\) are not accepted");
  }
  const drive = /^[A-Za-z]:/u.exec(command)?.[0] ?? "";
  if (drive !== "" && !absolute) {
    throw new ExecutableRefusedError(command, "a drive-relative path (C:name) depends on the drive's current directory");
  }
  if (!absolute && /[\\/]/u.test(command)) throw relativePathRefusal(command);
  const components = command
    .slice(drive.length)
    .split(/[\\/]/u)
    .filter((component) => component !== "");
  const last = components.at(-1) ?? "";
  for (const component of components) {
    if (/[. ]$/u.test(component)) {
      throw new ExecutableRefusedError(command, "a path component ends in a dot or a space, which Windows silently strips");
    }
    if (WINDOWS_FORBIDDEN_NAME_CHARACTERS.test(component)) {
      throw new ExecutableRefusedError(command, "the name holds a character Windows does not allow in file names");
    }
  }
  if (WINDOWS_RESERVED_NAMES.test(last)) throw new ExecutableRefusedError(command, "the name is a reserved Windows device name");
}

function windowsKind(command: string, file: string): ExecutableKind {
  const extension = path.win32.extname(file).toUpperCase();
  if (WINDOWS_BINARY_EXTENSIONS.has(extension)) return "binary";
  if (WINDOWS_BATCH_EXTENSIONS.has(extension)) return "batch";
  // A .ps1/.vbs/.js match would need a shell or a file association to run.
  throw new ExecutableRefusedError(
    command,
    extension === "" ? "the file has no extension, so Windows cannot run it directly" : `${extension.toLowerCase()} files cannot be launched without a shell`,
  );
}

function relativePathRefusal(command: string): ExecutableRefusedError {
  return new ExecutableRefusedError(command, "a path must be absolute; give a bare name to search PATH");
}

/** Whether this process may execute `candidate` (POSIX `access(X_OK)`): the lookup's default check. */
function isExecutableByProcess(candidate: string): boolean {
  try {
    accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
