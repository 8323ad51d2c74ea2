/**
 * A writer descheduled (SIGSTOP, a terminal's Ctrl-Z, swap, a paused VM)
 * between deciding that its token's mtime is fresh and linking the token
 * (lock-token.ts): the lock it then holds carries the mtime of before the
 * stall, so it may look stale to every waiter the moment it is made. A lock
 * file created exclusively never did: its mtime was its creation's. The stall
 * is simulated inside `linkSync` by moving the (fake) wall clock on, which is
 * all a waiter's staleness judgement reads; this file mocks `node:fs` for that.
 */
import { existsSync, lstatSync, readdirSync, writeFileSync, utimesSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LockTimeoutError } from "../../../src/state/errors.js";
import { withSyncLockFile } from "../../../src/state/lock-file.js";
import { TOKEN_REFRESH_MS, tokenPrefix } from "../../../src/state/lock-token.js";
import { takeOverDeadLock } from "../../../src/state/stale-takeover.js";
import { tempDir, TEST_LOCK_TIMING } from "./helpers.js";

/** What happens inside the next `linkSync`: the stall before the link, and what others do right after it. */
const next = vi.hoisted(() => ({ stallMs: 0, afterLink: undefined as (() => void) | undefined, futimesFails: false }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const linkSync: typeof fs.linkSync = (existing, target) => {
    if (next.stallMs > 0) vi.advanceTimersByTime(next.stallMs);
    next.stallMs = 0;
    fs.linkSync(existing, target);
    const after = next.afterLink;
    next.afterLink = undefined;
    after?.();
  };
  const futimesSync: typeof fs.futimesSync = (fd, atime, mtime) => {
    if (next.futimesFails) throw Object.assign(new Error("EIO: i/o error, futime"), { code: "EIO" });
    fs.futimesSync(fd, atime, mtime);
  };
  return { ...fs, linkSync, futimesSync, default: { ...fs, linkSync, futimesSync } };
});

function target(): { file: string; lockPath: string } {
  const file = path.join(tempDir(), "audit.jsonl");
  return { file, lockPath: `${file}.lock` };
}

/** Takes and releases the lock once (the token is made and its mtime set now), then moves the clock on less than a refresh period. */
async function tokenJustRefreshed(file: string): Promise<void> {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
  await withSyncLockFile(file, TEST_LOCK_TIMING, () => undefined);
  vi.advanceTimersByTime(TOKEN_REFRESH_MS / 2);
}

afterEach(() => {
  vi.useRealTimers();
  next.stallMs = 0;
  next.afterLink = undefined;
  next.futimesFails = false;
});

describe("a writer stalled between its token's refresh and the link", () => {
  it("holds a lock no waiter judges stale: its mtime is set to now once the stall is seen", async () => {
    const { file, lockPath } = target();
    await tokenJustRefreshed(file);
    next.stallMs = 60_000;
    // A waiter polling while the body runs: it must find a live lock, not a dead one to remove.
    const removedByWaiter = await withSyncLockFile(file, TEST_LOCK_TIMING, () => takeOverDeadLock(lockPath, TEST_LOCK_TIMING.stale));
    expect(removedByWaiter).toBe(false);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("a waiter that took the stale-looking lock over in the meantime keeps it: the stalled writer neither runs nor removes it", async () => {
    const { file, lockPath } = target();
    await tokenJustRefreshed(file);
    next.stallMs = 60_000;
    let robber = -1;
    next.afterLink = () => {
      // Another writer judged the just-linked lock stale, removed it and made its own (fresh, by the same clock).
      expect(takeOverDeadLock(lockPath, TEST_LOCK_TIMING.stale)).toBe(true);
      writeFileSync(lockPath, "");
      const now = new Date();
      utimesSync(lockPath, now, now);
      robber = lstatSync(lockPath).ino;
    };
    let ran = false;
    await expect(
      withSyncLockFile(file, { ...TEST_LOCK_TIMING, waitMs: 50 }, () => {
        ran = true;
      }),
    ).rejects.toBeInstanceOf(LockTimeoutError);
    expect(ran).toBe(false);
    expect(existsSync(lockPath)).toBe(true);
    expect(lstatSync(lockPath).ino).toBe(robber);
  });

  it("a refresh that fails after the stall drops the token: the lock it leaves ages out, never kept fresh by this writer", async () => {
    const { file, lockPath } = target();
    await tokenJustRefreshed(file);
    next.stallMs = 60_000;
    next.afterLink = () => {
      next.futimesFails = true;
    };
    await expect(withSyncLockFile(file, TEST_LOCK_TIMING, () => undefined)).rejects.toMatchObject({ code: "EIO" });
    // The lock stays (this writer cannot tell whether it is still its own); the token's name is gone, its descriptor closed.
    expect(existsSync(lockPath)).toBe(true);
    expect(readdirSync(path.dirname(file)).filter((name) => name.startsWith(tokenPrefix(lockPath)))).toEqual([]);
  });
});
