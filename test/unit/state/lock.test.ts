/**
 * The cross-process lock with real processes: a holder killed with SIGKILL
 * leaves its lock behind, which is taken over once stale; a slow holder that
 * is alive keeps refreshing its lock and is never robbed; a lock whose mtime
 * lies in the future (the clock went back) does not lock everyone out.
 * Every process in a test uses TEST_LOCK_TIMING (stale 2 s, refresh 1 s), the
 * shortest proper-lockfile accepts, where the stale period is what is waited
 * out; where it also bounds a write's own hold (half of it), a roomier one that
 * a loaded machine's write stays within. The tests run concurrently (each with its own
 * directory and processes): they spend their time waiting for a lock to go stale,
 * not computing, so the file takes as long as its longest test instead of the sum.
 */
import { lstatSync, mkdirSync, statSync, utimesSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LockCompromisedError, LockTimeoutError } from "../../../src/state/errors.js";
import { LEASE_FILE, LeaseStore } from "../../../src/state/lease-store.js";
import { withFileLock, type LockTiming } from "../../../src/state/lock.js";
import { assertBuiltStateIsFresh, runChild } from "./child-process.js";
import { hex64, tempDir, TEST_LOCK_TIMING } from "./helpers.js";
import { startThief, stallUntil } from "./lock-thief.js";

const B1 = hex64("b1");

/** Activates `prod`, then holds the lease lock inside startWhileActive (or `method`) for `holdMs` (a hung spawn), printing as it goes. */
const HOLDER = `
const { LeaseStore } = await import(process.env.STATE_DIST + "/lease-store.js");
const [dir, binding, holdMs, timing, method = "startWhileActive"] = process.argv.slice(1);
const store = new LeaseStore(dir, { lockTiming: JSON.parse(timing) });
// Activated before anyone waits, with a stale period (half of it bounds the write) a loaded machine's write stays within.
await new LeaseStore(dir, { lockTiming: { ...JSON.parse(timing), stale: 10000 } }).activate("prod", binding, 30, "replace");
// proper-lockfile's refresh timer is unref'd; keep the process alive while holding.
const keepAlive = setInterval(() => {}, 1000);
const result = await store[method]("prod", binding, async () => {
  process.stdout.write("locked " + Date.now() + "\\n");
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  return "spawned";
});
clearInterval(keepAlive);
process.stdout.write("released " + Date.now() + " " + JSON.stringify(result) + "\\n");
`;

function storeIn(dir: string, waitMs: number, timing: LockTiming = TEST_LOCK_TIMING): LeaseStore {
  return new LeaseStore(dir, { lockTiming: { ...timing, waitMs } });
}

/**
 * For a lock that only has to be taken once it is free: a write that took more than half the stale period is
 * refused as possibly robbed, and a loaded machine can stretch a write past TEST_LOCK_TIMING's one second.
 */
const ROOMY_TIMING: LockTiming = { ...TEST_LOCK_TIMING, stale: 10_000 };

/** A live holder against a waiter that judges its staleness: both agree on a stale period roomy enough for a loaded machine's writes (3 s). */
const SLOW_HOLDER_TIMING: LockTiming = { ...TEST_LOCK_TIMING, stale: 6_000 };

describe.concurrent("the state lock across processes", () => {
  beforeAll(() => {
    assertBuiltStateIsFresh();
  });

  it("a holder killed with SIGKILL is taken over after the stale period, not before", async ({ onTestFinished }) => {
    const dir = tempDir(onTestFinished);
    const holder = runChild(HOLDER, [dir, B1, "600000", JSON.stringify(TEST_LOCK_TIMING)]);
    await holder.line("locked ");
    holder.child.kill("SIGKILL");
    expect(await holder.exited).toMatchObject({ signal: "SIGKILL" });
    // The dead holder's last refresh, by the clock every process shares: the lock is stale `stale` ms after it.
    const lastRefresh = statSync(path.join(dir, `${LEASE_FILE}.lock`)).mtimeMs;

    // Measured against the lock's own mtime, not the time of the kill, so a slow machine cannot make it early or late.
    let takenAt = 0;
    await withFileLock(path.join(dir, LEASE_FILE), { ...TEST_LOCK_TIMING, waitMs: 60_000 }, () => {
      takenAt = Date.now();
      return Promise.resolve();
    });
    expect(takenAt).toBeGreaterThanOrEqual(lastRefresh + TEST_LOCK_TIMING.stale - 5);
    // The lease store's own wait takes it once free.
    await storeIn(dir, 0, ROOMY_TIMING).revoke("prod");
    expect(storeIn(dir, 0, ROOMY_TIMING).isActive("prod", B1)).toBe(false);
  });

  // startNowWhileActive takes the lock with a bare mkdir (no proper-lockfile) and refreshes it itself while the start waits for the child host.
  it.for(["startWhileActive", "startNowWhileActive"])(
    "a slow live holder (%s) keeps its lock beyond the stale period and is not robbed",
    async (method, { onTestFinished }) => {
      const dir = tempDir(onTestFinished);
      const holdMs = SLOW_HOLDER_TIMING.stale + 1_500;
      const holder = runChild(HOLDER, [dir, B1, String(holdMs), JSON.stringify(SLOW_HOLDER_TIMING), method]);
      await holder.line("locked ");
      // When the clear committed, by the wall clock both processes share: a robbed lock lets it commit while the holder still holds.
      // The clear's own wait is not what is tested: a budget past the hold however late the holder lets go.
      const waiting = storeIn(dir, 60_000, SLOW_HOLDER_TIMING)
        .clear()
        .then((cleared) => ({ cleared, at: Date.now() }));
      const released = await holder.line("released ");
      const { cleared: result, at: clearedAt } = await waiting;
      expect(await holder.exited).toMatchObject({ code: 0 });
      const releasedAt = Number(released.split(" ")[1]);
      expect(clearedAt).toBeGreaterThanOrEqual(releasedAt);
      expect(released).toContain('{"active":true,"value":"spawned"}');
      // The clear ran after the holder's start() and revoked the lease it had checked.
      expect(result.cleared).toEqual(["prod"]);
    },
  );
});

/** Holds the lock with withFileLock while its clock runs an hour ahead (so the lock's mtime lies in the others' future). */
const HOLDER_AHEAD = `
const realNow = Date.now;
Date.now = () => realNow() + 3_600_000;
const { withFileLock } = await import(process.env.STATE_DIST + "/lock.js");
const [file, timing] = process.argv.slice(1);
const keepAlive = setInterval(() => {}, 1000);
await withFileLock(file, JSON.parse(timing), async () => {
  process.stdout.write("locked\\n");
  await new Promise(() => {});
});
clearInterval(keepAlive);
`;

describe.concurrent("the state lock and the clock", () => {
  beforeAll(() => {
    assertBuiltStateIsFresh();
  });

  it("a holder whose mtime lies in the future is not robbed while it refreshes, and is taken over soon after it dies", async ({ onTestFinished }) => {
    const dir = tempDir(onTestFinished);
    const file = path.join(dir, LEASE_FILE);
    const holder = runChild(HOLDER_AHEAD, [file, JSON.stringify(TEST_LOCK_TIMING)]);
    await holder.line("locked");
    expect(statSync(`${file}.lock`).mtimeMs).toBeGreaterThan(Date.now() + 3_000_000);

    // Alive and refreshing (its mtime keeps moving): a waiter times out rather than taking it over.
    await expect(withFileLock(file, { ...TEST_LOCK_TIMING, waitMs: 2_500 }, () => Promise.resolve())).rejects.toBeInstanceOf(LockTimeoutError);

    holder.child.kill("SIGKILL");
    await holder.exited;
    const killedAt = performance.now();
    // proper-lockfile alone would wait an hour plus `stale`; a future mtime that stops moving is taken over after two
    // refresh periods: long before the minute this wait allows (no tighter bound: a loaded machine only makes it later).
    await withFileLock(file, { ...TEST_LOCK_TIMING, waitMs: 60_000 }, () => Promise.resolve());
    const waited = performance.now() - killedAt;
    expect(waited).toBeGreaterThan(TEST_LOCK_TIMING.update);
  });

  it("a takeover that fails (no room for its guard file) refuses the lock with that error instead of crashing the process", async ({ onTestFinished }) => {
    const dir = tempDir(onTestFinished);
    // The lock's own name fits; the guard's (`<lock>.takeover-<identity>`) is longer than a file name may be.
    const file = path.join(dir, "s".repeat(230));
    mkdirSync(`${file}.lock`);
    utimesSync(`${file}.lock`, new Date("2020-01-01"), new Date("2020-01-01"));
    await expect(withFileLock(file, TEST_LOCK_TIMING, () => Promise.resolve("held"))).rejects.toMatchObject({ code: "ENAMETOOLONG" });
    expect(lstatSync(`${file}.lock`).isDirectory()).toBe(true);
  });
});

describe("a writer's lock that is no longer its own", () => {
  beforeAll(() => {
    assertBuiltStateIsFresh();
  });

  it("a writer stalled past the stale period and robbed reports the loss and leaves the robber's lock in place", async () => {
    const file = path.join(tempDir(), "grants.yaml");
    const held = withFileLock(file, TEST_LOCK_TIMING, () => {
      const thief = startThief(file, TEST_LOCK_TIMING);
      stallUntil(thief.robbed, 60_000);
      return Promise.resolve();
    });
    await expect(held).rejects.toBeInstanceOf(LockCompromisedError);
    expect(lstatSync(`${file}.lock`).isDirectory()).toBe(true);
  });
});
