/**
 * Taking the audit log's lock (`<file>.lock`, lock-file.ts) without creating
 * a file: each writer keeps one empty file of its own beside the lock, its
 * token (`<file>.lock.token-<random>`), and takes the lock by hard-linking the
 * token to the lock's name (`link(2)`), releasing it with `unlink`.
 *
 * Why: creating the lock file allocated an inode on every append and its
 * `unlink` freed it. On ext4 without a journal (the measuring machine's
 * disk) the allocator skips every inode freed in the last 30 s
 * (`recently_deleted`, one inode-table lookup each), so a server appending
 * a hundred times a second paid for thousands of skipped inodes per append:
 * 0.17 ms for the create alone, 0.26 ms of kernel CPU per call in
 * `ext4_create` (perf). A link adds a name to an existing inode: no
 * allocation, no free, whatever the file system.
 *
 * The exclusion is the same: `link` fails with EEXIST while anything (a lock
 * file, a lock directory of an older Torii, another writer's token) is at the
 * name, exactly as `O_CREAT | O_EXCL` and `mkdir` do, so every kind of
 * writer still excludes every other.
 *
 * The staleness rule is the same too: a waiter judges a lock by its mtime
 * (stale-takeover.ts, lock.ts), and a linked lock's mtime is its token's. So
 * the holder sets its token's mtime to now before it links it whenever the
 * last refresh is more than a second old by the wall clock (`futimes`: no other writer's lock
 * is ever touched, since the token is this writer's alone): a held lock is at
 * most about a second old, far from the 10 s stale period. A dead holder's
 * token stops being refreshed and its lock is taken over as before; the
 * takeover guard's identity (inode, birth time, mtime) still tells a judged
 * stale lock (its mtime over 10 s old) from a fresh one made with the same
 * token. The mtime is set before the link, so a writer descheduled between
 * the two (SIGSTOP, a terminal's Ctrl-Z, swap) would link a lock that looks
 * as old as the stall to every waiter, robbed before its body runs; a created
 * lock file never had that window. So a link made over two refresh periods
 * after the token's mtime is followed by a refresh and a check that the lock
 * is still this token's inode: a waiter that judged it stale before the
 * refresh finds another mtime and leaves it (stale-takeover.ts compares it),
 * and one that removed it already has its own lock, which this writer then
 * waits for as for any other. The open token keeps its inode alive, so the
 * lock is this writer's exactly when it has the token's device and inode:
 * the release removes it only then (a holder stopped past the stale period
 * in its hold leaves the taker's lock, and lock-file.ts reports the loss), and
 * a writer finding its own token there while it holds nothing (a link that
 * took effect though it reported EEXIST) drops the token, so that this lock
 * ages out instead of being kept fresh by the writer's every attempt.
 *
 * A token is created once per writer (thread) and lock, removed at exit. A
 * crashed writer's token is left behind: the next writer to create a token
 * removes tokens not refreshed for a minute (a live but idle writer whose
 * token was removed finds it gone at its next lock and makes a new one). Where
 * hard links are not supported (Windows is not tried; FAT, some network or
 * FUSE file systems refuse), the lock file is created exclusively as before.
 *
 * The same fallback serves a token that cannot be made or whose mtime cannot
 * be set (a file system that links but refuses `futimes`, as some FUSE and
 * network ones do for a file's times): a token linked without a refresh would
 * look stale to every waiter, so that append creates the lock file
 * exclusively instead; it excludes tokens, files and older Torii's
 * directories alike, as above. When the failure says what the file system or
 * this process's rights are (EPERM, EACCES, ENOTSUP, EOPNOTSUPP, ENOSYS,
 * EROFS, EINVAL), it would recur on every append, each paying a sweep, a
 * create, a failed call and an unlink before the lock file: this process
 * stops trying tokens for that lock. Any other failure (EIO, ENOSPC, EMFILE,
 * ...) may clear, and the link is the cheaper lock, so the next append tries
 * a new token. Either way the token is dropped: a writer holding a lock file
 * keeps no token, so its release removes the lock it made.
 */
import { randomUUID } from "node:crypto";
import { closeSync, constants, fstatSync, futimesSync, linkSync, lstatSync, openSync, readdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import { createdExclusively, removeLockEntry } from "./stale-takeover.js";

/** How often a token's mtime is set to now before it is linked: a held lock is never older than this (plus its hold). */
export const TOKEN_REFRESH_MS = 1_000;

/** A token not refreshed for this long is a crashed (or idle) writer's and is removed by the next new token's sweep. */
export const TOKEN_SWEEP_AFTER_MS = 60_000;

const CREATE_TOKEN = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;

/** `link` errors that say the file system has no hard links: the lock file is then created exclusively. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/** Errors making a token or setting its mtime that the file system or this process's rights give every time: tokens are not tried again. */
const TOKENS_REFUSED = new Set(["EPERM", "EACCES", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EROFS", "EINVAL"]);

interface Token {
  readonly path: string;
  readonly fd: number;
  /** The token's inode: what a lock linked from it is. */
  readonly dev: number;
  readonly ino: number;
  /** The mtime last given to the token (wall clock, ms): what waiters compare with their wall clock. */
  mtimeMs: number;
}

/** This writer's token per lock path; `null` once hard links failed there (created exclusively from then on). */
const tokens = new Map<string, Token | null>();
let exitHookSet = false;

/** The name of the tokens of `lockPath`'s writers. */
export function tokenPrefix(lockPath: string): string {
  return `${path.basename(lockPath)}.token-`;
}

/**
 * Takes the lock at `lockPath` if nothing is there: links this writer's token
 * (or creates the lock file where there are no hard links, or where the token
 * cannot be made or refreshed). False when another holder has it; throws on
 * any other failure.
 */
export function claimLock(lockPath: string): boolean {
  if (process.platform === "win32") return createdExclusively(lockPath);
  let token = tokens.get(lockPath);
  if (token === null) return createdExclusively(lockPath);
  for (let attempt = 0; ; attempt += 1) {
    try {
      token ??= newToken(lockPath);
      refresh(token);
    } catch (error) {
      return claimWithoutToken(lockPath, token, error);
    }
    try {
      linkSync(token.path, lockPath);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (code === "EEXIST") {
        // Held by another, unless it is this very token while this writer holds nothing (a link that took effect though
        // it reported EEXIST, as NFS may when it retransmits one): this writer's refreshes would keep it fresh for ever.
        // Dropped, the token no longer moves and the lock ages out like a crashed holder's.
        if (isLinkedAt(lockPath, token)) forget(lockPath, token);
        return false;
      }
      forget(lockPath, token);
      // Removed behind this writer's back (another writer's sweep of an idle token): a new one, once.
      if (code === "ENOENT" && attempt === 0) {
        token = undefined;
        continue;
      }
      if (!NO_HARD_LINKS.has(code)) throw error;
      tokens.set(lockPath, null);
      return createdExclusively(lockPath);
    }
    return stillHeldAfterLink(lockPath, token);
  }
}

/**
 * The token could not be made (`token` undefined) or its mtime set: this
 * append creates the lock file exclusively. The token, not linked, is
 * dropped; a refused kind of failure stops this process trying tokens here.
 */
function claimWithoutToken(lockPath: string, token: Token | undefined, error: unknown): boolean {
  if (token) forget(lockPath, token);
  if (TOKENS_REFUSED.has((error as NodeJS.ErrnoException).code ?? "")) tokens.set(lockPath, null);
  return createdExclusively(lockPath);
}

/**
 * After the link: true unless the writer stalled for over a refresh period
 * since the token's mtime (the lock may have looked stale to a waiter) and
 * the lock is no longer this token once its mtime is set to now. A failure
 * here drops the token, as in releaseLock: the lock, linked or not, is left to
 * age out instead of being kept fresh by this writer's next refresh.
 */
function stillHeldAfterLink(lockPath: string, token: Token): boolean {
  const now = Date.now();
  if (now >= token.mtimeMs && now - token.mtimeMs < 2 * TOKEN_REFRESH_MS) return true;
  try {
    futimesSync(token.fd, now / 1000, now / 1000);
    token.mtimeMs = now;
    return isLinkedAt(lockPath, token);
  } catch (error) {
    forget(lockPath, token);
    throw error;
  }
}

/** True when the entry at `lockPath` is `token`'s inode (alive while its descriptor is open: never another file's). */
function isLinkedAt(lockPath: string, token: Token): boolean {
  const found = lstatSync(lockPath, { throwIfNoEntry: false });
  return found !== undefined && found.dev === token.dev && found.ino === token.ino;
}

/**
 * Releases the lock this writer holds at `lockPath`: false, removing nothing,
 * when the lock there is no longer this writer's token (it stalled past the
 * stale period in its hold and a waiter took the lock over; removing the
 * taker's lock would let a third writer in beside it). When the removal
 * fails, the token is dropped too: left in place, the lock must age out like
 * a crashed holder's instead of being kept fresh by this writer's next
 * refresh.
 */
export function releaseLock(lockPath: string): boolean {
  const token = tokens.get(lockPath);
  try {
    if (token && !isLinkedAt(lockPath, token)) return false;
    removeLockEntry(lockPath);
    return true;
  } catch (error) {
    if (token) forget(lockPath, token);
    throw error;
  }
}

/**
 * Sets the token's mtime to now unless it was set within TOKEN_REFRESH_MS
 * (the token is not linked: only this writer sees it change). Judged by the
 * wall clock, as waiters judge it: after the clock is set forward the token
 * is refreshed at once, and after it is set back too (an mtime in the future).
 */
function refresh(token: Token): void {
  const now = Date.now();
  if (now >= token.mtimeMs && now - token.mtimeMs < TOKEN_REFRESH_MS) return;
  futimesSync(token.fd, now / 1000, now / 1000);
  token.mtimeMs = now;
}

function newToken(lockPath: string): Token {
  sweepStaleTokens(lockPath);
  const tokenPath = path.join(path.dirname(lockPath), `${tokenPrefix(lockPath)}${randomUUID()}`);
  const fd = openSync(tokenPath, CREATE_TOKEN, 0o600);
  let dev: number;
  let ino: number;
  try {
    ({ dev, ino } = fstatSync(fd));
  } catch (error) {
    // Not a token yet: nothing else will close or remove it.
    closeSync(fd);
    unlinkSync(tokenPath);
    throw error;
  }
  // Its mtime is the creation's; the first lock refreshes it (the file system's clock may differ slightly from Date.now()).
  const token: Token = { path: tokenPath, fd, dev, ino, mtimeMs: -Infinity };
  tokens.set(lockPath, token);
  if (!exitHookSet) {
    exitHookSet = true;
    process.once("exit", removeTokens);
  }
  return token;
}

/** Closes the token and removes its name (it may be the lock's inode too, held or left: the lock's own name is not touched). */
function forget(lockPath: string, token: Token): void {
  if (tokens.get(lockPath) === token) tokens.delete(lockPath);
  try {
    closeSync(token.fd);
  } catch {
    // Forgotten all the same.
  }
  try {
    unlinkSync(token.path);
  } catch {
    // Already gone (swept), or the directory went away.
  }
}

/** Removes the tokens of `lockPath`'s writers that were not refreshed for TOKEN_SWEEP_AFTER_MS: crashed writers' (a live idle writer makes a new one). */
function sweepStaleTokens(lockPath: string): void {
  const dir = path.dirname(lockPath);
  const prefix = tokenPrefix(lockPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const before = Date.now() - TOKEN_SWEEP_AFTER_MS;
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const found = path.join(dir, name);
    try {
      const stats = lstatSync(found);
      if (stats.isFile() && stats.mtimeMs < before) unlinkSync(found);
    } catch {
      // Removed meanwhile: nothing to sweep.
    }
  }
}

/** At exit: every token of this writer is closed and removed. */
function removeTokens(): void {
  for (const [lockPath, token] of tokens) {
    if (token) forget(lockPath, token);
  }
}
