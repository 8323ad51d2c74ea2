/**
 * The audit log's cross-process lock: `<file>.lock`, an entry created
 * atomically at that name (a hard link of the writer's token, lock-token.ts,
 * or where there are no hard links, or the token cannot be made or its mtime
 * set, an empty file created with `O_CREAT | O_EXCL`) and removed with
 * `unlink`, held only while a synchronous body runs
 * (a few system calls, no wait).
 *
 * It replaces the `mkdir`/`rmdir` of the same path (lock.ts, proper-lockfile)
 * for the audit log because on the measuring machine's ext4 (mounted with
 * `discard`) an `rmdir` frees the directory's block and blocked the event loop
 * for about 1.5 ms, and the pair cost about 95 µs of CPU against about 35 µs
 * for a file's create and unlink, on every append (bench/audit-appends.mjs);
 * and the file's create in turn allocated an inode per append, which the same
 * disk (no journal) made cost about 0.2 ms (lock-token.ts).
 *
 * Every other writer of the log stays excluded, whichever kind it uses: every
 * kind atomically creates the same name (link, exclusive create, mkdir), and
 * each fails with EEXIST while anything is there, so an older Torii's `mkdir`
 * (or proper-lockfile's) waits while a lock file exists and this one waits
 * while a lock directory exists. The staleness rule is the same (an mtime
 * older than `stale`, 10 s for the audit log, belongs to a dead holder; a live
 * proper-lockfile holder refreshes its directory's mtime, a token is refreshed
 * before it is linked) and a stale lock of any kind is taken over, by one
 * waiter only (stale-takeover.ts); an mtime in the future is handled by
 * lock.ts's `acquire`. The one
 * asymmetry: an older Torii removes a stale lock with `rmdir`, which fails on
 * a file, so a lock file left by a writer that crashed inside its hold (a
 * window of microseconds) makes an older writer's appends fail until this
 * version's next append takes it over.
 */
import { LockCompromisedError } from "./errors.js";
import { acquire, effectiveTiming, monotonicMs, type LockTiming } from "./lock.js";
import { claimLock, releaseLock } from "./lock-token.js";
import { createdExclusively, removeLockEntry, takeOverDeadLock } from "./stale-takeover.js";

/** A cell nobody notifies: `Atomics.wait` on it is a synchronous pause. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs the synchronous `body` holding `<file>.lock`: at once when it is free,
 * otherwise once a wait (backing off, up to `timing.waitMs`) found it free or
 * took over a stale one. The lock is removed right after `body`, unless
 * another writer took it over meanwhile: then it is left to that writer and
 * LockCompromisedError is thrown after `body` ran.
 */
export async function withSyncLockFile<T>(file: string, timing: LockTiming, body: () => T): Promise<T> {
  const lockPath = `${file}.lock`;
  if (!claimLock(lockPath)) {
    await acquire(file, lockPath, timing, () => (takenOver(lockPath, timing) ? Promise.resolve() : Promise.reject(locked(lockPath))));
  }
  let held = false;
  let value: T;
  try {
    value = body();
  } finally {
    held = releaseLock(lockPath);
  }
  // The body ran (its writes are done) while another writer may have held the lock too: the caller says what that means.
  if (!held) throw new LockCompromisedError(file, `${lockPath} was taken over by another writer during the hold`);
  return value;
}

/**
 * Runs the synchronous `body` holding `<file>.lock` once it is free, waiting
 * for it synchronously (for a process that is exiting: no timer runs any
 * more) at most `waitMs`: another writer holds it for microseconds, but may
 * be descheduled while it does. Returns `{held: false}` without running `body`
 * when the lock stayed taken; a stale lock is not taken over here. The lock
 * is an exclusively created file, not a token (lock-token.ts): at exit the
 * tokens are being removed.
 */
export function withLockFileWithin<T>(file: string, waitMs: number, body: () => T): { held: true; value: T } | { held: false } {
  const lockPath = `${file}.lock`;
  const deadline = monotonicMs() + waitMs;
  for (let pauseMs = 0.25; !createdExclusively(lockPath); pauseMs = Math.min(pauseMs * 2, 2)) {
    const left = deadline - monotonicMs();
    if (left <= 0) return { held: false };
    Atomics.wait(PAUSE, 0, 0, Math.min(pauseMs, left));
  }
  try {
    return { held: true, value: body() };
  } finally {
    removeLockEntry(lockPath);
  }
}

/** Creates the lock, after removing a dead holder's (a file or an older writer's directory) when it is stale. */
function takenOver(lockPath: string, timing: LockTiming): boolean {
  if (claimLock(lockPath)) return true;
  const { stale } = effectiveTiming(timing);
  takeOverDeadLock(lockPath, stale);
  return claimLock(lockPath);
}

function locked(lockPath: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${lockPath} is held`), { code: "ELOCKED" });
}
