/**
 * A file system that allows hard links but refuses to set a file's times
 * (`futimes`), or where a writer's token cannot be made: the token cannot be
 * refreshed before it is linked (lock-token.ts), and a lock linked from it
 * would look stale to every waiter. Every append failed there, while the
 * exclusively created lock file of before worked. The writer now creates the
 * lock file for that append, and stops trying tokens when the failure is of a
 * kind that recurs (EPERM, EACCES, ...). This file mocks `node:fs` for that.
 */
import { lstatSync, mkdirSync, readdirSync, rmdirSync, utimesSync, writeFileSync } from "node:fs";
import * as fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LockTimeoutError } from "../../../src/state/errors.js";
import { withLockFileWithin, withSyncLockFile } from "../../../src/state/lock-file.js";
import { tokenPrefix } from "../../../src/state/lock-token.js";
import { tempDir, TEST_LOCK_TIMING } from "./helpers.js";

/** The errors the mocked calls give (none when undefined) and how often a token's times were set or a token created. */
const fault = vi.hoisted(() => ({ futimes: undefined as string | undefined, tokenCreate: undefined as string | undefined, futimesCalls: 0, tokenCreates: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const futimesSync: typeof real.futimesSync = (fd, atime, mtime) => {
    fault.futimesCalls += 1;
    if (fault.futimes) throw Object.assign(new Error(`${fault.futimes}: refused, futime`), { code: fault.futimes });
    real.futimesSync(fd, atime, mtime);
  };
  const openSync: typeof real.openSync = (...args) => {
    if (String(args[0]).includes(".lock.token-")) {
      fault.tokenCreates += 1;
      if (fault.tokenCreate) throw Object.assign(new Error(`${fault.tokenCreate}: refused, open`), { code: fault.tokenCreate });
    }
    return real.openSync(...args);
  };
  return { ...real, futimesSync, openSync, default: { ...real, futimesSync, openSync } };
});

afterEach(() => {
  fault.futimes = undefined;
  fault.tokenCreate = undefined;
  fault.futimesCalls = 0;
  fault.tokenCreates = 0;
});

function target(): { file: string; lockPath: string; dir: string } {
  const file = path.join(tempDir(), "audit.jsonl");
  return { file, lockPath: `${file}.lock`, dir: path.dirname(file) };
}

function tokenNames(dir: string, lockPath: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith(tokenPrefix(lockPath)));
}

/** Inside a hold: the lock is an exclusively created file (one link, no token beside it) and every other kind of writer is kept out. */
function heldAsLockFile(file: string, lockPath: string): string {
  const dir = path.dirname(file);
  const found = lstatSync(lockPath);
  expect(found.isFile()).toBe(true);
  expect(found.nlink).toBe(1);
  expect(tokenNames(dir, lockPath)).toEqual([]);
  // Another writer's token link, an older Torii's lock directory, an exiting writer's lock file: all find it taken.
  const other = path.join(dir, `${path.basename(lockPath)}.token-other`);
  writeFileSync(other, "");
  expect(() => fs.linkSync(other, lockPath)).toThrow(expect.objectContaining({ code: "EEXIST" }) as Error);
  fs.unlinkSync(other);
  expect(() => mkdirSync(lockPath)).toThrow(expect.objectContaining({ code: "EEXIST" }) as Error);
  expect(withLockFileWithin(file, 0, () => "beside")).toEqual({ held: false });
  return "ran";
}

describe("a token whose mtime cannot be set, or that cannot be made", () => {
  it("EPERM from futimes: the append holds an exclusively created lock file, which excludes every other writer; tokens are not tried again", async () => {
    const { file, lockPath, dir } = target();
    fault.futimes = "EPERM";
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => heldAsLockFile(file, lockPath))).toBe("ran");
    expect(lstatSync(lockPath, { throwIfNoEntry: false })).toBeUndefined();
    expect(fault.futimesCalls).toBe(1);
    // A refusal recurs: the next append goes straight to the lock file.
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => heldAsLockFile(file, lockPath))).toBe("ran");
    expect(fault.futimesCalls).toBe(1);
    expect(fault.tokenCreates).toBe(1);
    expect(tokenNames(dir, lockPath)).toEqual([]);
  });

  it("the falling-back writer waits while another writer holds the lock (a linked token, an older Torii's directory)", async () => {
    const { file, lockPath, dir } = target();
    fault.futimes = "EPERM";
    const other = path.join(dir, `${path.basename(lockPath)}.token-other`);
    writeFileSync(other, "");
    const now = new Date();
    utimesSync(other, now, now);
    fs.linkSync(other, lockPath);
    let ran = false;
    const body = (): void => {
      ran = true;
    };
    await expect(withSyncLockFile(file, { ...TEST_LOCK_TIMING, waitMs: 50 }, body)).rejects.toBeInstanceOf(LockTimeoutError);
    expect(ran).toBe(false);
    expect(lstatSync(lockPath).ino).toBe(lstatSync(other).ino);
    fs.unlinkSync(lockPath);
    mkdirSync(lockPath);
    await expect(withSyncLockFile(file, { ...TEST_LOCK_TIMING, waitMs: 50 }, body)).rejects.toBeInstanceOf(LockTimeoutError);
    expect(ran).toBe(false);
    expect(lstatSync(lockPath).isDirectory()).toBe(true);
    rmdirSync(lockPath);
    fs.unlinkSync(other);
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => heldAsLockFile(file, lockPath))).toBe("ran");
  });

  it("EIO from futimes (it may clear): this append holds the lock file, the next one links a new token", async () => {
    const { file, lockPath, dir } = target();
    fault.futimes = "EIO";
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => heldAsLockFile(file, lockPath))).toBe("ran");
    fault.futimes = undefined;
    const linked = await withSyncLockFile(file, TEST_LOCK_TIMING, () => {
      const [token] = tokenNames(dir, lockPath);
      return token !== undefined && lstatSync(path.join(dir, token)).ino === lstatSync(lockPath).ino;
    });
    expect(linked).toBe(true);
    expect(fault.tokenCreates).toBe(2);
  });

  it("a token that cannot be made (EACCES): the append holds the lock file and makes no token again", async () => {
    const { file, lockPath } = target();
    fault.tokenCreate = "EACCES";
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => heldAsLockFile(file, lockPath))).toBe("ran");
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => heldAsLockFile(file, lockPath))).toBe("ran");
    expect(fault.tokenCreates).toBe(1);
    expect(fault.futimesCalls).toBe(0);
  });
});
