/**
 * The lock a launch holds while it waits for something outside Torii (the
 * child host's `spawned`): the same `<file>.lock` directory and protocol as
 * proper-lockfile's holders (`mkdir`, mtime refreshed every `update` ms, taken
 * over by a waiter once not refreshed for `stale` ms), but owned and checked
 * here, so that a lock this process no longer holds is known as such:
 *
 * - at `mkdir` the directory's identity (device, inode, birth time) and mtime
 *   are recorded; each refresh and the release first check that the directory
 *   is still that one, with the mtime this process last gave it;
 * - a refresh that comes later than halfway between the refresh period and the
 *   stale period (the event loop stalled) leaves another process time to judge
 *   the lock stale and take it over: from then on the lock is not trusted;
 * - when the body resolves and the lock is not certainly ours, the caller gets
 *   LockCompromisedError (its effect happened without exclusion: it must undo
 *   it), and a lock that is not ours, or may not be, is never removed (a lock
 *   left behind by a stall is taken over once stale, as a dead holder's).
 */
import { lstatSync, utimesSync } from "node:fs";
import { LockCompromisedError } from "./errors.js";
import {
  acquire,
  effectiveTiming,
  isSameDirectory,
  monotonicMs,
  removeLockDirectory,
  suspectAfterMs,
  takenIfFree,
  type LockIdentity,
  type LockTiming,
} from "./lock.js";
import { takeOverDeadLock } from "./stale-takeover.js";

/** What makes the lock directory this holder's: its identity and the mtime this holder last set. */
interface Ownership extends LockIdentity {
  mtimeMs: number;
  /** When (monotonic ms) the mtime was last set by this holder. */
  refreshedAt: number;
}

/**
 * Runs `body` holding `<file>.lock`: taken at once with one `mkdir` when free,
 * else waited for (up to `timing.waitMs`, LockTimeoutError) with a dead
 * holder's lock taken over. Refreshed and checked while `body` runs.
 *
 * @throws LockCompromisedError when `body` resolved but the lock may have been lost meanwhile;
 *   whatever `body` throws (the lock is then released if still ours).
 */
export async function withCheckedFileLock<T>(file: string, timing: LockTiming, body: () => Promise<T>): Promise<T> {
  const lockPath = `${file}.lock`;
  // proper-lockfile's own bounds, so that this holder and its holders agree on what is stale.
  const { stale, update } = effectiveTiming(timing);
  const own = await acquire(file, lockPath, timing, () => Promise.resolve(takeLock(lockPath, stale)));
  let lost: string | undefined;
  const problem = (): string | undefined => (lost ??= ownershipProblem(lockPath, own, suspectAfterMs(timing)));
  const refresh = setInterval(() => {
    if (problem() === undefined) refreshLock(lockPath, own);
  }, update);
  let value: T;
  try {
    value = await body();
  } catch (error) {
    clearInterval(refresh);
    if (problem() === undefined) removeLockDirectory(lockPath);
    throw error;
  }
  clearInterval(refresh);
  const reason = problem();
  if (reason !== undefined) throw new LockCompromisedError(file, reason);
  removeLockDirectory(lockPath);
  return value;
}

/** One attempt: the `mkdir`, or a dead holder's lock removed and the `mkdir` again; an ELOCKED error while a live holder has it. */
function takeLock(lockPath: string, stale: number): Ownership {
  if (!takenIfFree(lockPath)) {
    // Removed by one waiter only, and only while it is the lock judged stale (stale-takeover.ts).
    takeOverDeadLock(lockPath, stale);
    if (!takenIfFree(lockPath)) throw busy(lockPath);
  }
  const stats = lstatSync(lockPath);
  return { dev: stats.dev, ino: stats.ino, birthtimeMs: stats.birthtimeMs, mtimeMs: stats.mtimeMs, refreshedAt: monotonicMs() };
}

function busy(lockPath: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${lockPath} is held`), { code: "ELOCKED" });
}

/** Why the lock is not certainly this holder's any more, or undefined while it is. */
function ownershipProblem(lockPath: string, own: Ownership, suspectAfterMs: number): string | undefined {
  const sinceRefresh = monotonicMs() - own.refreshedAt;
  if (sinceRefresh > suspectAfterMs) {
    return `not refreshed for ${Math.round(sinceRefresh)} ms (the process stalled), so another process may have taken it over as stale`;
  }
  const stats = lstatSync(lockPath, { throwIfNoEntry: false });
  if (stats === undefined) return `${lockPath} is gone`;
  if (!isSameDirectory(stats, own) || stats.mtimeMs !== own.mtimeMs) {
    return `${lockPath} is another holder's now`;
  }
  return undefined;
}

/** Sets the lock's mtime to now and records it as this holder's. */
function refreshLock(lockPath: string, own: Ownership): void {
  const refreshedAt = monotonicMs();
  try {
    const now = new Date();
    utimesSync(lockPath, now, now);
    own.mtimeMs = lstatSync(lockPath).mtimeMs;
    own.refreshedAt = refreshedAt;
  } catch {
    // The directory vanished: the next check says so.
  }
}
