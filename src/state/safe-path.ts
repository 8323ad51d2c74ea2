/**
 * Checks that a state path is what it claims to be before it is read or
 * written. A lease or grant file decides what an agent may run, so whoever can
 * swap it (through a symlink, a hard link, or a directory others can write)
 * could grant themselves access. Every refusal is a StateError of kind
 * `unsafe-path`.
 *
 * On POSIX: the state directory must be a real directory and the state file a
 * regular file with one link, both held to the configuration's owner-and-mode
 * rule (config/file-trust.ts: this user's or root's, not writable by group or
 * others); the lock path and temp files must not be symlinks. On Windows, owner
 * and mode bits mean nothing, so only the symlink and file-type checks apply.
 */
import { lstatSync, mkdirSync, type Stats } from "node:fs";
import path from "node:path";
import { currentTrustPolicy, ownerAndModeProblem, type TrustPolicy } from "../config/file-trust.js";
import { StateError } from "./errors.js";

/** Who the files must belong to, and whether POSIX owner/mode checks apply: the configuration's rule. */
export type PathPolicy = TrustPolicy;

/** This process's policy. */
export function currentPathPolicy(platform: NodeJS.Platform = process.platform): PathPolicy {
  return currentTrustPolicy(platform);
}

/** `lstat`, or undefined when nothing is there. */
export function lstatIfExists(target: string, file: string): Stats | undefined {
  try {
    // Absence is the common answer (no lock held): no exception is built for it.
    return lstatSync(target, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a path component is a file, so nothing can be there either; still suspicious, refuse.
    throw new StateError(file, code === "ENOTDIR" ? "unsafe-path" : "io", `cannot inspect ${target}: ${String(code ?? error)}`, {
      cause: error,
    });
  }
}

/**
 * Checks the directory that holds `file`. Returns false when it does not exist
 * (a missing directory is a missing state file); throws when it is unsafe.
 */
export function checkStateDirectory(file: string, policy: PathPolicy): boolean {
  const dir = path.dirname(file);
  const stats = lstatIfExists(dir, file);
  if (stats === undefined) return false;
  if (stats.isSymbolicLink()) throw unsafe(file, `the state directory ${dir} is a symbolic link`);
  if (!stats.isDirectory()) throw unsafe(file, `the state directory ${dir} is not a directory`);
  checkOwnerAndMode(file, dir, "state directory", stats, policy);
  return true;
}

/** Creates the state directory (mode 0700, parents too) when missing, then checks it. */
export function ensureStateDirectory(file: string, policy: PathPolicy): void {
  if (checkStateDirectory(file, policy)) return;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StateError(file, "io", `cannot create the state directory: ${(error as Error).message}`, { cause: error });
  }
  checkStateDirectory(file, policy);
}

/** Refuses a symlink (or anything but a directory) at the lock path; nothing there is fine. */
export function checkLockPath(file: string, lockPath: string): void {
  const stats = lstatIfExists(lockPath, file);
  if (stats === undefined) return;
  if (stats.isSymbolicLink()) throw unsafe(file, `the lock path ${lockPath} is a symbolic link`);
  if (!stats.isDirectory()) throw unsafe(file, `the lock path ${lockPath} is not a directory`);
}

/** Checks an opened state file (its `fstat`): a regular file with one link, ours, not writable by others. */
export function checkStateFileStats(file: string, stats: Stats, policy: PathPolicy): void {
  if (!stats.isFile()) throw unsafe(file, "the state file is not a regular file");
  if (stats.nlink > 1) throw unsafe(file, `the state file has ${stats.nlink} hard links`);
  checkOwnerAndMode(file, file, "state file", stats, policy);
}

function checkOwnerAndMode(file: string, subject: string, what: string, stats: Stats, policy: PathPolicy): void {
  const problem = ownerAndModeProblem(subject, stats, policy);
  if (problem !== undefined) throw unsafe(file, `the ${what} ${subject} ${problem.detail}; fix: ${problem.fix}`);
}

function unsafe(file: string, detail: string): StateError {
  return new StateError(file, "unsafe-path", detail);
}
