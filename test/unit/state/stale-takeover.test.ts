/**
 * A dead holder's lock taken over by many waiters at once: exactly one of
 * them holds it at a time, for every lock kind (the audit log's lock file, the
 * checked lease lock, proper-lockfile's directory) and for a mix of kinds on
 * one file. Threads start each round together on a shared signal.
 */
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LockTimeoutError } from "../../../src/state/errors.js";
import { withSyncLockFile } from "../../../src/state/lock-file.js";
import { tokenPrefix } from "../../../src/state/lock-token.js";
import { takeoverGuardPath } from "../../../src/state/stale-takeover.js";
import { assertBuiltStateIsFresh } from "./child-process.js";
import { tempDir, TEST_LOCK_TIMING } from "./helpers.js";
import { raceTakeovers, type LockKind } from "./takeover-race.js";

const TRIALS = Number(process.env.TAKEOVER_TRIALS ?? 100);
const TIMING = { ...TEST_LOCK_TIMING, waitMs: 10_000 };

type Planted = "file" | "directory" | "token";

/**
 * Leaves a crashed holder's lock at `lockPath`, its mtime a minute old: a file, a directory,
 * or a hard link of a crashed writer's token (lock-token.ts; the token's name stays too).
 */
function plantStale(lockPath: string, kind: Planted): void {
  rmSync(lockPath, { recursive: true, force: true });
  if (kind === "file") writeFileSync(lockPath, "");
  else if (kind === "directory") mkdirSync(lockPath);
  else {
    const token = `${lockPath}.token-crashed`;
    rmSync(token, { force: true });
    writeFileSync(token, "");
    linkSync(token, lockPath);
  }
  const old = new Date(Date.now() - 60_000);
  utimesSync(lockPath, old, old);
}

async function race(kinds: readonly LockKind[], plantKinds: readonly Planted[]): Promise<void> {
  const dir = tempDir();
  const file = path.join(dir, "locked.yaml");
  const outcome = await raceTakeovers({
    file,
    kinds,
    trials: TRIALS,
    timing: TIMING,
    holdMs: 1,
    plant: (trial) => plantStale(`${file}.lock`, plantKinds[trial % plantKinds.length] ?? "file"),
  });
  expect({ ...outcome, errors: [...new Set(outcome.errors)] }).toEqual({ overlaps: 0, held: TRIALS * kinds.length, errors: [] });
  // Nothing is left behind: no lock, no takeover guard, no token (the race ends once the workers exited, their exit hooks
  // having removed their tokens).
  expect(readdirSync(dir).filter((name) => !name.endsWith(".token-crashed"))).toEqual([]);
}

describe("a stale lock taken over by several waiters at once", () => {
  beforeAll(() => {
    assertBuiltStateIsFresh();
  });

  it("the audit log's lock file: one holder at a time, over a crashed holder's file, linked token or an older writer's directory", async () => {
    await race(["lock-file", "lock-file", "lock-file", "lock-file"], ["file", "directory", "token"]);
  }, 60_000);

  it("the checked lease lock: one holder at a time", async () => {
    await race(["checked-lock", "checked-lock", "checked-lock", "checked-lock"], ["directory"]);
  }, 60_000);

  it("proper-lockfile's lock and the checked lock on one file: one holder at a time", async () => {
    await race(["proper-lockfile", "checked-lock", "proper-lockfile", "checked-lock"], ["directory"]);
  }, 60_000);

  it("a waiter backs off while another removes the same stale lock, and takes over a guard its crashed remover left", async () => {
    const dir = tempDir();
    const file = path.join(dir, "audit.jsonl");
    plantStale(`${file}.lock`, "file");
    const guard = takeoverGuardPath(`${file}.lock`, lstatSync(`${file}.lock`, { bigint: true }));
    writeFileSync(guard, "");
    await expect(withSyncLockFile(file, { ...TIMING, waitMs: 200 }, () => "ran")).rejects.toBeInstanceOf(LockTimeoutError);
    expect(existsSync(`${file}.lock`)).toBe(true);
    // The remover died inside its takeover: its guard ages past the stale period like a lock.
    const old = new Date(Date.now() - 60_000);
    utimesSync(guard, old, old);
    expect(await withSyncLockFile(file, TIMING, () => "ran")).toBe("ran");
    // Nothing left but this (live) writer's token (lock-token.ts).
    expect(readdirSync(dir).filter((name) => !name.startsWith(tokenPrefix(`${file}.lock`)))).toEqual([]);
  });
});
