/**
 * Removing a dead holder's lock so that exactly one waiter does it. Judging a
 * lock stale and removing it are two system calls: two waiters that judged the
 * same lock stale could both remove "it", the second removing the lock the
 * first had just made, and both then held the lock.
 *
 * Here the removal of one judged entry is itself exclusive: the waiter first
 * creates (`O_CREAT | O_EXCL`) a guard file named after that entry's identity
 * (inode, birth time and mtime in nanoseconds), `<lock>.takeover-<identity>`;
 * only the guard's creator removes the entry, and only while `lockPath` is still
 * that very entry; the guard is removed after. A waiter that judged the entry
 * later and comes after finds the guard (and backs off) or, once the guard is
 * gone, an entry of another identity (the winner's lock, made now, so its
 * mtime differs) and removes nothing. A guard left by a waiter that crashed in
 * its few system calls is itself taken over the same way once older than the
 * stale period, so a crash never locks everyone out.
 *
 * This holds among writers of this version. An older Torii removes a stale
 * lock directory without a guard, so while one runs alongside (an upgrade) its
 * takeover can still race another's; it cannot remove a lock file at all.
 */
import { closeSync, constants, lstatSync, openSync, rmdirSync, unlinkSync, type BigIntStats } from "node:fs";

const CREATE_EXCLUSIVE = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY;

/**
 * Removes the lock at `lockPath` (a file or a directory) when `isDead` judges
 * it a dead holder's (by default: its mtime is older than `staleMs`), unless
 * another waiter is removing the same one. Returns
 * true when this call removed it; the caller then makes its own lock with an
 * exclusive create, which still fails if someone else made one first.
 */
export function takeOverDeadLock(lockPath: string, staleMs: number, isDead: (found: BigIntStats) => boolean = (found) => olderThan(found, staleMs)): boolean {
  const found = lstatSync(lockPath, { bigint: true, throwIfNoEntry: false });
  if (found === undefined || !isDead(found)) return false;
  return removeJudged(lockPath, lockPath, found, staleMs);
}

/** True when `found`'s mtime is older than `staleMs`: no live holder has refreshed it. */
function olderThan(found: BigIntStats, staleMs: number): boolean {
  return Number(found.mtimeMs) < Date.now() - staleMs;
}

/** Removes the entry at `entryPath` if it is still `judged`, holding the guard of `judged` (guards live beside `lockPath`). */
function removeJudged(lockPath: string, entryPath: string, judged: BigIntStats, staleMs: number): boolean {
  const guard = takeoverGuardPath(lockPath, judged);
  if (!createdExclusively(guard)) {
    const holder = lstatSync(guard, { bigint: true, throwIfNoEntry: false });
    // Another waiter is removing this entry now; a guard this old is a crashed waiter's.
    if (holder === undefined || !olderThan(holder, staleMs)) return false;
    if (!removeJudged(lockPath, guard, holder, staleMs) || !createdExclusively(guard)) return false;
  }
  try {
    const now = lstatSync(entryPath, { bigint: true, throwIfNoEntry: false });
    if (now === undefined || identityName(now) !== identityName(judged)) return false;
    removeLockEntry(entryPath);
    return true;
  } finally {
    removeLockEntry(guard);
  }
}

/** The guard a waiter creates to remove the entry `judged` (the lock at `lockPath`, or a guard beside it). */
export function takeoverGuardPath(lockPath: string, judged: BigIntStats): string {
  return `${lockPath}.takeover-${identityName(judged)}`;
}

/** What tells this entry from any other made at the same path since (an inode number may be reused, a time may not). */
function identityName(stats: BigIntStats): string {
  return [stats.ino, stats.birthtimeNs, stats.mtimeNs].map((part) => part.toString(36)).join(".");
}

/** The exclusive create of an empty file: false when something (a file or a directory) is already there. */
export function createdExclusively(target: string): boolean {
  let fd: number;
  try {
    fd = openSync(target, CREATE_EXCLUSIVE, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  closeSync(fd);
  return true;
}

/** Removes a lock, whichever kind it is (a file, or a directory as proper-lockfile and older writers make); already gone is fine. */
export function removeLockEntry(lockPath: string): void {
  try {
    unlinkSync(lockPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    // A directory (Linux says EISDIR, macOS EPERM).
    if (code !== "EISDIR" && code !== "EPERM") throw error;
    try {
      rmdirSync(lockPath);
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code !== "ENOENT") throw inner;
    }
  }
}
