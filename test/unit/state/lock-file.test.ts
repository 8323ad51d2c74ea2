/**
 * The audit log's lock file (`<file>.lock`, created exclusively) against the
 * lock directory an older Torii makes at the same path: each excludes the
 * other, a stale lock of either kind is taken over, a fresh one never is.
 */
import { existsSync, lstatSync, mkdirSync, rmdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LockTimeoutError } from "../../../src/state/errors.js";
import { withLockFileWithin, withSyncLockFile } from "../../../src/state/lock-file.js";
import { tempDir, TEST_LOCK_TIMING } from "./helpers.js";

function target(): { file: string; lockPath: string } {
  const file = path.join(tempDir(), "audit.jsonl");
  return { file, lockPath: `${file}.lock` };
}

/** Ages `lockPath` past the stale period. */
function makeStale(lockPath: string): void {
  const old = new Date(Date.now() - 60_000);
  utimesSync(lockPath, old, old);
}

describe("the audit log's lock file", () => {
  it("is a file while held, so an older writer's mkdir of the same path fails; it is gone after the body", async () => {
    const { file, lockPath } = target();
    const seen = await withSyncLockFile(file, TEST_LOCK_TIMING, () => {
      expect(() => mkdirSync(lockPath)).toThrow(expect.objectContaining({ code: "EEXIST" }) as unknown as Error);
      return lstatSync(lockPath).isFile();
    });
    expect(seen).toBe(true);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("waits while an older writer holds its lock directory, and runs once it is removed", async () => {
    const { file, lockPath } = target();
    mkdirSync(lockPath);
    let ran = false;
    const holding = withSyncLockFile(file, TEST_LOCK_TIMING, () => (ran = true));
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toBe(false);
    rmdirSync(lockPath);
    await holding;
    expect(ran).toBe(true);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("is not taken while a lock directory stays there (a process exiting gives up after its wait)", () => {
    const { file, lockPath } = target();
    mkdirSync(lockPath);
    expect(withLockFileWithin(file, 5, () => "ran")).toEqual({ held: false });
    rmdirSync(lockPath);
    expect(withLockFileWithin(file, 5, () => "ran")).toEqual({ held: true, value: "ran" });
  });

  it("takes over a stale lock of either kind: a crashed holder's file, an older writer's directory", async () => {
    for (const leave of [(lockPath: string) => writeFileSync(lockPath, ""), (lockPath: string) => mkdirSync(lockPath)]) {
      const { file, lockPath } = target();
      leave(lockPath);
      makeStale(lockPath);
      expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => lstatSync(lockPath).isFile())).toBe(true);
      expect(existsSync(lockPath)).toBe(false);
    }
  });

  it("never takes over a fresh lock: the wait ends with a timeout", async () => {
    const { file, lockPath } = target();
    writeFileSync(lockPath, "");
    await expect(withSyncLockFile(file, { ...TEST_LOCK_TIMING, waitMs: 300 }, () => "ran")).rejects.toBeInstanceOf(LockTimeoutError);
    expect(lstatSync(lockPath).isFile()).toBe(true);
  });

  it("takes over a lock file whose mtime lies in the future and does not move (the clock went back)", async () => {
    const { file, lockPath } = target();
    writeFileSync(lockPath, "");
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(lockPath, future, future);
    expect(await withSyncLockFile(file, { ...TEST_LOCK_TIMING, waitMs: 10_000 }, () => "ran")).toBe("ran");
    expect(existsSync(lockPath)).toBe(false);
  });
});
