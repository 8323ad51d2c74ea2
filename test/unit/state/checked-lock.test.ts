/**
 * The lease lock a launch holds while it waits for the child host, when it
 * stops being ours: a holder whose process stalls past the stale period is
 * robbed by a real process (taken over as stale), and a lock directory
 * replaced under a live holder. Either way the start is reported as done
 * without exclusion (LockCompromisedError, for the caller to stop the process)
 * and the other holder's lock is never removed.
 */
import { lstatSync, mkdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LockCompromisedError } from "../../../src/state/errors.js";
import { LEASE_FILE, LeaseStore } from "../../../src/state/lease-store.js";
import { assertBuiltStateIsFresh } from "./child-process.js";
import { hex64, tempDir, TEST_LOCK_TIMING } from "./helpers.js";
import { startThief, stallUntil } from "./lock-thief.js";

const B1 = hex64("b1");

async function activeStore(): Promise<{ store: LeaseStore; file: string; lockDir: string }> {
  const dir = tempDir();
  const store = new LeaseStore(dir, { lockTiming: TEST_LOCK_TIMING });
  await store.activate("prod", B1, 30, "replace");
  const file = path.join(dir, LEASE_FILE);
  return { store, file, lockDir: `${file}.lock` };
}

describe("a launch's lease lock that is no longer ours", () => {
  beforeAll(() => {
    assertBuiltStateIsFresh();
  });

  it("a holder stalled past the stale period and robbed gets LockCompromisedError, and the robber's lock stays", async () => {
    const { store, file, lockDir } = await activeStore();
    const started = store.startNowWhileActive("prod", B1, () => {
      const thief = startThief(file, TEST_LOCK_TIMING);
      stallUntil(thief.robbed, 60_000);
      return Promise.resolve("spawned");
    });
    await expect(started).rejects.toBeInstanceOf(LockCompromisedError);
    await expect(started).rejects.toThrow(/not refreshed for \d+ ms \(the process stalled\)/);
    // The robber still holds its lock: it was not removed as ours.
    expect(lstatSync(lockDir).isDirectory()).toBe(true);
  });

  it("a lock directory replaced under a live holder is detected and the new one is not removed", async () => {
    const { store, lockDir } = await activeStore();
    let replaced: { ino: number; birthtimeMs: number; mtimeMs: number } | undefined;
    const started = store.startNowWhileActive("prod", B1, () => {
      rmdirSync(lockDir);
      mkdirSync(lockDir);
      replaced = lstatSync(lockDir);
      return Promise.resolve("spawned");
    });
    await expect(started).rejects.toThrow(/is another holder's now/);
    expect(lstatSync(lockDir)).toMatchObject({ ino: replaced?.ino, birthtimeMs: replaced?.birthtimeMs, mtimeMs: replaced?.mtimeMs });
  });

  it("a lock removed under its holder is reported lost", async () => {
    const { store, lockDir } = await activeStore();
    const started = store.startNowWhileActive("prod", B1, () => {
      rmdirSync(lockDir);
      return Promise.resolve("spawned");
    });
    await expect(started).rejects.toThrow(/\.lock is gone/);
  });
});
