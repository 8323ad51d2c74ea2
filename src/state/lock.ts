/**
 * The cross-process lock on a file, shared by the state stores (the audit log
 * takes the same path as a file, lock-file.ts, and waits through `acquire`):
 * proper-lockfile's atomic `mkdir` of `<file>.lock`, whose mtime the holder
 * refreshes every `update` ms. A lock whose mtime is older than `stale` belongs
 * to a dead process and is taken over; a slow but live holder keeps refreshing
 * it and is never robbed.
 *
 * What proper-lockfile leaves to the caller, done here once:
 * - `realpath: false`, because the file may not exist yet;
 * - a bounded wait (`waitMs`) with jittered backoff (2 ms growing to 50 ms)
 *   instead of the library's default of failing at once (`LockTimeoutError`);
 * - an `onCompromised` that records the loss instead of throwing from a timer
 *   (the default kills the process); `HeldLock.assertHeld()` lets a writer abort
 *   before it commits, and a loss is reported after the body;
 * - a lock whose mtime lies in the future (written before the clock was set
 *   back) would lock everyone out until the clock catches up: when such an
 *   mtime has not moved for two `update` periods, no live holder is refreshing
 *   it, and it is taken over;
 * - every takeover of a dead holder's lock, proper-lockfile's included, goes
 *   through stale-takeover.ts, so that two waiters never both take it over.
 *
 * Every process that locks a given file must use the same `stale` and `update`
 * (proper-lockfile's rule): each file kind has one exported timing constant.
 */
import * as nodeFs from "node:fs";
import { fsync, lstatSync, mkdirSync, rmdir, rmdirSync, unlinkSync, type Stats } from "node:fs";
import { lock, type LockOptions } from "proper-lockfile";
import { LockCompromisedError, LockTimeoutError } from "./errors.js";
import { takeOverDeadLock } from "./stale-takeover.js";

export interface LockTiming {
  /** A lock not refreshed for this long (ms) is a dead holder's and is taken over. proper-lockfile raises it to at least 2000. */
  readonly stale: number;
  /** How often (ms) the holder refreshes the lock; proper-lockfile keeps it within [1000, stale/2]. */
  readonly update: number;
  /** How long (ms) to wait for a lock another holder keeps before giving up with LockTimeoutError. */
  readonly waitMs: number;
}

/**
 * The state files' timing, for every process: a dead holder's lock is taken
 * over after 10 s; the holder refreshes every 2 s; a waiter gives up after
 * 5 s (Torii waits 5 s too). A state update holds the lock for milliseconds.
 */
export const STATE_LOCK_TIMING: LockTiming = Object.freeze({ stale: 10_000, update: 2_000, waitMs: 5_000 });

/** A mtime this far ahead of the clock cannot come from a live holder's refresh (proper-lockfile's first mtime is up to 1 s ahead). */
const FUTURE_MTIME_TOLERANCE_MS = 2_000;

export interface HeldLock {
  readonly lockPath: string;
  /**
   * Throws LockCompromisedError unless the lock is still certainly ours: not
   * reported lost, its directory still there and still the one this holder
   * made (same device, inode and birth time: not another holder's after a
   * takeover), and held for less than half the stale period (so no other
   * process can have judged it stale yet).
   */
  assertHeld(): void;
}

/** What tells a lock directory from another holder's made after it was removed (the inode number may be reused). */
export interface LockIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly birthtimeMs: number;
}

/** True when `stats` are of the directory `identity` was taken from. */
export function isSameDirectory(stats: Stats | undefined, identity: LockIdentity): boolean {
  return stats !== undefined && stats.dev === identity.dev && stats.ino === identity.ino && stats.birthtimeMs === identity.birthtimeMs;
}

/** `timing` as proper-lockfile applies it (stale at least 2 s, refresh within [1 s, stale/2]), which every holder must agree on. */
export function effectiveTiming(timing: LockTiming): { readonly stale: number; readonly update: number } {
  const stale = Math.max(timing.stale, 2_000);
  return { stale, update: Math.max(Math.min(timing.update, stale / 2), 1_000) };
}

/**
 * A refresh later than halfway between the refresh period and the stale period
 * leaves another process time to judge the lock stale and take it over: past
 * that age a lock is no longer certainly its holder's.
 */
export function suspectAfterMs(timing: LockTiming): number {
  const { stale, update } = effectiveTiming(timing);
  return (stale + update) / 2;
}

/**
 * Runs `body` holding the lock `<file>.lock`; always releases it, but removes
 * the directory only while it is the one this holder made and its mtime is
 * fresh: after a stall (a takeover may be under way or done) it is left to the
 * other holder, or to age out, and the loss is reported.
 */
export async function withFileLock<T>(file: string, timing: LockTiming, body: (held: HeldLock) => Promise<T>): Promise<T> {
  const lockPath = `${file}.lock`;
  let lost: Error | undefined;
  let mine: LockIdentity | undefined = undefined;
  // proper-lockfile's release removes the directory without looking, and so does its takeover of a dead holder's lock.
  const guardedRmdir = (target: string, callback: (error: NodeJS.ErrnoException | null) => void): void => {
    if (mine === undefined) {
      // A takeover (before the lock is ours): by one waiter only (stale-takeover.ts); proper-lockfile's `mkdir` follows.
      // Runs inside proper-lockfile's fs callback: a throw here would escape as an uncaught exception
      // and end the server, so a failed takeover (no room for the guard file, a read-only directory)
      // is handed back as the error of this rmdir, and the lock is simply not taken.
      const { stale } = effectiveTiming(timing);
      try {
        takeOverDeadLock(target, stale);
      } catch (error) {
        callback(error as NodeJS.ErrnoException);
        return;
      }
      callback(null);
      return;
    }
    const stats = lstatSync(target, { throwIfNoEntry: false });
    if (stats === undefined || (isSameDirectory(stats, mine) && Date.now() - stats.mtimeMs < suspectAfterMs(timing))) {
      rmdir(target, callback);
      return;
    }
    lost ??= new Error(`${target} was left in place: it is not certainly this holder's any more`);
    callback(null);
  };
  const lockOptions: LockOptions = {
    fs: { ...nodeFs, rmdir: guardedRmdir },
    stale: timing.stale,
    update: timing.update,
    realpath: false,
    lockfilePath: lockPath,
    retries: 0,
    onCompromised: (error) => {
      lost ??= error;
    },
  };
  const release = await acquire(file, lockPath, timing, () => lock(file, lockOptions));
  // Never matches when the directory is already gone: nothing is then removed as ours.
  mine = lstatSync(lockPath, { throwIfNoEntry: false }) ?? { dev: -1, ino: -1, birthtimeMs: -1 };
  const acquiredAt = monotonicMs();
  const held: HeldLock = {
    lockPath,
    assertHeld() {
      if (lost !== undefined) throw new LockCompromisedError(file, lost.message, { cause: lost });
      const elapsed = monotonicMs() - acquiredAt;
      if (elapsed > timing.stale / 2) {
        throw new LockCompromisedError(file, `held for ${Math.round(elapsed)} ms, more than half the ${timing.stale} ms stale period`);
      }
      // The directory must be the one this holder made: one made by a process that took the lock over (it judged
      // this one stale, as a wall-clock step forward makes a fresh lock look) is another holder's, not a lock at all for this write.
      const found = lstatSync(lockPath, { throwIfNoEntry: false });
      if (found === undefined || !found.isDirectory()) throw new LockCompromisedError(file, `${lockPath} is gone`);
      if (!isSameDirectory(found, mine)) {
        throw new LockCompromisedError(file, `${lockPath} was replaced by another holder's lock (a takeover)`);
      }
    },
  };
  let value: T;
  try {
    value = await body(held);
  } finally {
    await release().catch((error: unknown) => {
      lost ??= error instanceof Error ? error : new Error(String(error));
    });
  }
  if (lost !== undefined) throw new LockCompromisedError(file, lost.message, { cause: lost });
  return value;
}

/**
 * Runs the synchronous `body` holding the lock `<file>.lock` if no one holds it
 * now, without waiting: the same atomic `mkdir` proper-lockfile takes, so every
 * other holder is excluded as by `withFileLock`. The lock lives only while
 * `body` runs, with no turn of the event loop, so its fresh mtime needs no
 * refresh (a hold this short is never judged stale). Returns `{held: false}`
 * without running `body` when the lock is taken; the caller then waits with
 * `withFileLock`. Skips proper-lockfile's asynchronous calls, which cost a
 * thread-pool round trip each.
 */
export function withFileLockIfFree<T>(file: string, body: () => T): { held: true; value: T } | { held: false } {
  const lockPath = `${file}.lock`;
  try {
    mkdirSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return { held: false };
    throw error;
  }
  try {
    return { held: true, value: body() };
  } finally {
    removeLockDirectory(lockPath);
  }
}

/** The atomic `mkdir` of the lock directory: false when another holder has it. */
export function takenIfFree(lockPath: string): boolean {
  try {
    mkdirSync(lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** fsync(2) on the thread pool: the one file-system call of a locked update worth not blocking the event loop for. */
export function syncDescriptor(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fsync(fd, (error) => {
      if (error === null) resolve();
      else reject(error);
    });
  });
}

/**
 * Waits for the lock with `tryLock` (one attempt, rejecting with code ELOCKED
 * while another holder has it): jittered backoff up to `timing.waitMs`, and a
 * lock whose mtime lies in the future and stopped moving taken over.
 */
export async function acquire<R>(file: string, lockPath: string, timing: LockTiming, tryLock: () => Promise<R>): Promise<R> {
  const started = monotonicMs();
  let delay = 2;
  let future: { readonly mtimeMs: number; readonly since: number } | undefined;
  for (;;) {
    try {
      return await tryLock();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    }
    const now = monotonicMs();
    const mtimeMs = lockMtime(lockPath);
    if (mtimeMs !== undefined && mtimeMs > Date.now() + FUTURE_MTIME_TOLERANCE_MS) {
      if (future?.mtimeMs !== mtimeMs) future = { mtimeMs, since: now };
      else if (now - future.since > 2 * timing.update) {
        // Still ahead: a live holder's refresh would have set it to now.
        takeOverDeadLock(lockPath, effectiveTiming(timing).stale, (found) => Number(found.mtimeMs) > Date.now() + FUTURE_MTIME_TOLERANCE_MS);
        future = undefined;
        continue;
      }
    } else {
      future = undefined;
    }
    const waited = now - started;
    if (waited >= timing.waitMs) throw new LockTimeoutError(file, waited);
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay * (0.5 + Math.random()), timing.waitMs - waited)));
    delay = Math.min(delay * 1.5, 50);
  }
}

/**
 * A monotonic clock in milliseconds. Not `performance.now()`: its module
 * (node:perf_hooks) costs a short operator command such as `target activate`
 * some 5 ms to load, for two clock readings.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function lockMtime(lockPath: string): number | undefined {
  try {
    return lstatSync(lockPath).mtimeMs;
  } catch {
    return undefined;
  }
}

export function removeLockDirectory(lockPath: string): void {
  try {
    rmdirSync(lockPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    // The audit log's lock is a file (lock-file.ts); `acquire` removes one whose mtime lies in the future.
    if (code !== "ENOTDIR") throw error;
    unlinkSync(lockPath);
  }
}
