/**
 * The audit log's lock file (`<file>.lock`, a hard link of the writer's token
 * or a file created exclusively) against the lock directory an older Torii
 * makes at the same path: each excludes the other, a stale lock of either kind
 * is taken over, a fresh one never is.
 */
import { spawn } from "node:child_process";
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, rmdirSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { LockCompromisedError, LockTimeoutError } from "../../../src/state/errors.js";
import { withLockFileWithin, withSyncLockFile } from "../../../src/state/lock-file.js";
import { TOKEN_REFRESH_MS, TOKEN_SWEEP_AFTER_MS, tokenPrefix } from "../../../src/state/lock-token.js";
import { takeOverDeadLock } from "../../../src/state/stale-takeover.js";
import { builtUrl } from "./child-process.js";
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

  it("takes the lock without creating a file: a hard link of this writer's token, the same inode every time", async () => {
    const { file, lockPath } = target();
    const held = async () =>
      withSyncLockFile(file, TEST_LOCK_TIMING, () => {
        const stats = lstatSync(lockPath);
        return { ino: stats.ino, nlink: stats.nlink };
      });
    const first = await held();
    const second = await held();
    const tokens = readdirSync(path.dirname(file)).filter((name) => name.startsWith(tokenPrefix(lockPath)));
    expect(tokens).toHaveLength(1);
    const token = lstatSync(path.join(path.dirname(file), tokens[0] ?? ""));
    // Two names on one inode while held (no inode allocated, none freed), and the token's alone after.
    expect([first, second]).toEqual([
      { ino: token.ino, nlink: 2 },
      { ino: token.ino, nlink: 2 },
    ]);
    expect(token.nlink).toBe(1);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("a held lock is never older than the refresh period: the token's mtime is set before it is linked", async () => {
    const { file, lockPath } = target();
    await withSyncLockFile(file, TEST_LOCK_TIMING, () => undefined);
    const name = readdirSync(path.dirname(file)).find((entry) => entry.startsWith(tokenPrefix(lockPath)));
    expect(name).toBeDefined();
    const token = path.join(path.dirname(file), name ?? "");
    const old = new Date(Date.now() - 60_000);
    utimesSync(token, old, old);
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      vi.advanceTimersByTime(TOKEN_REFRESH_MS + 1);
      const seen = await withSyncLockFile(file, TEST_LOCK_TIMING, () => lstatSync(lockPath).mtimeMs);
      expect(Math.abs(seen - Date.now())).toBeLessThan(1_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a token removed behind the writer's back (another writer's sweep) is replaced by a new one", async () => {
    const { file, lockPath } = target();
    await withSyncLockFile(file, TEST_LOCK_TIMING, () => undefined);
    const dir = path.dirname(file);
    const [first] = readdirSync(dir).filter((name) => name.startsWith(tokenPrefix(lockPath)));
    unlinkSync(path.join(dir, first ?? ""));
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => lstatSync(lockPath).nlink)).toBe(2);
    const now = readdirSync(dir).filter((name) => name.startsWith(tokenPrefix(lockPath)));
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(first);
  });

  it("a new token sweeps away crashed writers' tokens (not refreshed for a minute), never a live writer's or the lock", async () => {
    const { file, lockPath } = target();
    const dir = path.dirname(file);
    const crashed = `${lockPath}.token-crashed`;
    const live = `${lockPath}.token-live`;
    writeFileSync(crashed, "");
    writeFileSync(live, "");
    const old = new Date(Date.now() - TOKEN_SWEEP_AFTER_MS - 5_000);
    utimesSync(crashed, old, old);
    await withSyncLockFile(file, TEST_LOCK_TIMING, () => undefined);
    const left = readdirSync(dir).filter((name) => name.startsWith(tokenPrefix(lockPath)));
    expect(left).toContain(path.basename(live));
    expect(left).not.toContain(path.basename(crashed));
    expect(left).toHaveLength(2);
  });

  it("a crashed writer's lock (its token linked, a minute old) is taken over", async () => {
    const { file, lockPath } = target();
    const crashed = `${lockPath}.token-crashed`;
    writeFileSync(crashed, "");
    linkSync(crashed, lockPath);
    makeStale(lockPath);
    const dead = lstatSync(lockPath).ino;
    expect(await withSyncLockFile(file, TEST_LOCK_TIMING, () => lstatSync(lockPath).ino)).not.toBe(dead);
    expect(existsSync(lockPath)).toBe(false);
  });

  it.runIf(process.platform !== "win32")("a writer's token is removed when its process exits", async () => {
    const { file, lockPath } = target();
    const script = [
      'import { lstatSync } from "node:fs";',
      "const { withSyncLockFile } = await import(process.env.LOCK_FILE);",
      'const held = await withSyncLockFile(process.argv[1], { stale: 2000, update: 1000, waitMs: 3000 }, () => lstatSync(process.argv[1] + ".lock").nlink);',
      "process.stdout.write(String(held));",
    ].join("\n");
    const child = spawn(process.execPath, ["--input-type=module", "-e", script, file], {
      env: { PATH: process.env.PATH ?? "", LOCK_FILE: builtUrl("lock-file.js") },
      stdio: ["ignore", "pipe", "pipe"],
      shell: false,
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect({ code, out, err }).toEqual({ code: 0, out: "2", err: "" });
    expect(readdirSync(path.dirname(file)).filter((name) => name.startsWith(tokenPrefix(lockPath)))).toEqual([]);
  });

  it("a holder robbed during its hold (stalled past the stale period) leaves the taker's lock in place and reports the loss", async () => {
    const { file, lockPath } = target();
    let taker = -1;
    const holding = withSyncLockFile(file, TEST_LOCK_TIMING, () => {
      // While this holder was stopped, another writer judged its lock stale, removed it and made its own.
      makeStale(lockPath);
      expect(takeOverDeadLock(lockPath, TEST_LOCK_TIMING.stale)).toBe(true);
      writeFileSync(lockPath, "");
      taker = lstatSync(lockPath).ino;
    });
    await expect(holding).rejects.toBeInstanceOf(LockCompromisedError);
    // Removing it would let a third writer in beside the taker.
    expect(lstatSync(lockPath).ino).toBe(taker);
  });
});
