import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { LockCompromisedError, LockTimeoutError, StaleRevisionError, StateError } from "../../../src/state/errors.js";
import { targetBinding } from "../../../src/state/fingerprints.js";
import { LEASE_FILE, LeaseStore, type LeaseStoreOptions } from "../../../src/state/lease-store.js";
import { deferred, FakeClock, FaultyFs, fsWithSlowSync, hex64, InjectedFault, snapshot, T0, tempDir, tempFiles, TEST_LOCK_TIMING } from "./helpers.js";
import { STATE_LOCK_TIMING } from "../../../src/state/lock.js";

const B1 = hex64("b1");
const B2 = hex64("b2");
const MINUTE = 60_000;

function setup(options: Partial<LeaseStoreOptions> = {}): { dir: string; clock: FakeClock; store: LeaseStore } {
  const dir = tempDir();
  const clock = new FakeClock();
  return { dir, clock, store: new LeaseStore(dir, { clock: clock.now, lockTiming: STATE_LOCK_TIMING, ...options }) };
}

describe("LeaseStore: activation", () => {
  it("a target starts inactive; a missing file is revision 0 and is not created by reading", () => {
    const { store } = setup();
    expect(store.read()).toEqual({ ok: true, state: { version: "1", revision: 0, authorizations: [] } });
    expect(store.isActive("prod", B1)).toBe(false);
    expect(existsSync(store.file)).toBe(false);
    expect(path.basename(store.file)).toBe(LEASE_FILE);
  });

  it("replace (the default shape) drops every other lease and says which", async () => {
    const { store } = setup();
    await store.activate("dev", B1, 30, "replace");
    await store.activate("stage", B1, 30, "add");
    const result = await store.activate("prod", B2, 15, "replace");
    expect(result.replaced).toEqual(["dev", "stage"]);
    expect(result.state).toEqual({
      version: "1",
      revision: 3,
      authorizations: [{ target: "prod", binding: B2, expires_at: "2026-03-01T10:15:00.000Z" }],
    });
    expect(store.read()).toEqual({ ok: true, state: result.state });
    expect(store.isActive("prod", B2)).toBe(true);
    expect(store.isActive("dev", B1)).toBe(false);
  });

  it("add keeps the other live leases, drops expired ones, and refreshes the same target", async () => {
    const { store, clock } = setup();
    await store.activate("dev", B1, 1, "replace");
    await store.activate("stage", B1, 60, "add");
    clock.advance(2 * MINUTE);
    const result = await store.activate("prod", B2, 10, "add");
    expect(result.replaced).toEqual([]);
    expect(result.state.authorizations.map((entry) => entry.target)).toEqual(["prod", "stage"]);
    const again = await store.activate("stage", B2, 5, "add");
    expect(again.state.authorizations).toContainEqual({ target: "stage", binding: B2, expires_at: new Date(clock.ms + 5 * MINUTE).toISOString() });
    expect(store.isActive("stage", B1)).toBe(false);
  });

  it("increments the revision by exactly one per write", async () => {
    const { store } = setup();
    for (let i = 1; i <= 12; i += 1) {
      const mode = i % 3 === 0 ? "replace" : "add";
      const { state } = await store.activate(`t${i % 4}`, B1, 10, mode);
      expect(state.revision).toBe(i);
    }
    expect((await store.revoke("t0")).revision).toBe(13);
    expect((await store.clear()).state.revision).toBe(14);
  });

  it.each([0, 1441, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    "refuses a duration of %s minutes with a RangeError and writes nothing",
    async (minutes) => {
      const { store } = setup();
      await expect(store.activate("prod", B1, minutes, "replace")).rejects.toBeInstanceOf(RangeError);
      expect(existsSync(store.file)).toBe(false);
    },
  );

  it("accepts the bounds 1 and 1440 minutes", async () => {
    const { store } = setup();
    expect((await store.activate("a", B1, 1, "add")).state.authorizations[0]?.expires_at).toBe(new Date(T0 + MINUTE).toISOString());
    const result = await store.activate("b", B1, 1440, "add");
    expect(result.state.authorizations.find((entry) => entry.target === "b")?.expires_at).toBe("2026-03-02T10:00:00.000Z");
  });

  it("refuses target names, bindings, modes and revisions it would not read back", async () => {
    const { store } = setup();
    await expect(store.activate("../prod", B1, 5, "add")).rejects.toBeInstanceOf(RangeError);
    await expect(store.activate("", B1, 5, "add")).rejects.toBeInstanceOf(RangeError);
    await expect(store.activate("prod", "not-a-digest", 5, "add")).rejects.toBeInstanceOf(RangeError);
    await expect(store.activate("prod", B1, 5, "merge" as "add")).rejects.toBeInstanceOf(RangeError);
    await expect(store.activate("prod", B1, 5, "add", -1)).rejects.toBeInstanceOf(RangeError);
    expect(existsSync(store.file)).toBe(false);
  });
});

describe("LeaseStore: expiry and the clock", () => {
  it("a lease is active until its expiry instant, then not", async () => {
    const { store, clock } = setup();
    await store.activate("prod", B1, 15, "replace");
    clock.advance(15 * MINUTE - 1);
    expect(store.isActive("prod", B1)).toBe(true);
    clock.advance(1);
    expect(store.isActive("prod", B1)).toBe(false);
  });

  it("a clock set back far (more than the longest lease) does not make a lease last longer than 1440 minutes + 1", async () => {
    const { store, clock } = setup();
    await store.activate("prod", B1, 15, "replace");
    clock.advance(-60 * MINUTE);
    expect(store.isActive("prod", B1)).toBe(true);
    clock.advance(-1440 * MINUTE);
    expect(store.isActive("prod", B1)).toBe(false);
  });
});

describe("LeaseStore: bindings", () => {
  it("editing, or removing and recreating, the target's file invalidates its lease", async () => {
    const { dir, store } = setup();
    const targetFile = path.join(dir, "targets", "prod", "target.yaml");
    const bindingOf = (content: string): string => {
      const stats = statSync(targetFile);
      return targetBinding({
        provider: "kubectl",
        alias: "prod",
        config: { context: content },
        fileIdentity: { ino: stats.ino, birthtimeMs: stats.birthtimeMs },
      });
    };
    mkdirSync(path.dirname(targetFile), { recursive: true });
    writeFileSync(targetFile, "context: prod\n");
    const original = bindingOf("prod");
    await store.activate("prod", original, 15, "replace");
    expect(store.isActive("prod", bindingOf("prod"))).toBe(true);

    expect(store.isActive("prod", bindingOf("prod-2"))).toBe(false);

    // Recreated with the same content: a new inode (the old one is still open, so it cannot be reused).
    const held = openSync(targetFile, "r");
    unlinkSync(targetFile);
    writeFileSync(targetFile, "context: prod\n");
    closeSync(held);
    expect(bindingOf("prod")).not.toBe(original);
    expect(store.isActive("prod", bindingOf("prod"))).toBe(false);
  });
});

describe("LeaseStore: revoke, clear and compare-and-swap", () => {
  it("revoke removes one lease and prunes expired ones; revoking an absent target writes nothing", async () => {
    const { store, clock } = setup();
    await store.activate("dev", B1, 1, "add");
    await store.activate("prod", B1, 30, "add");
    await store.activate("stage", B1, 30, "add");
    clock.advance(2 * MINUTE);
    const state = await store.revoke("prod");
    expect(state).toMatchObject({ revision: 4, authorizations: [{ target: "stage" }] });
    const before = readFileSync(store.file);
    expect(await store.revoke("prod")).toEqual(state);
    expect(readFileSync(store.file).equals(before)).toBe(true);
  });

  it("clear revokes every lease and reports the live ones", async () => {
    const { store } = setup();
    await store.activate("dev", B1, 30, "add");
    await store.activate("prod", B1, 30, "add");
    const result = await store.clear();
    expect(result).toEqual({ state: { version: "1", revision: 3, authorizations: [] }, cleared: ["dev", "prod"] });
    expect(result.preservedInvalid).toBeUndefined();
  });

  it("a compare-and-swap at the current revision applies; at an older one throws StaleRevisionError and changes nothing", async () => {
    const { store } = setup();
    await store.activate("dev", B1, 30, "replace", 0);
    const seen = store.read();
    if (!seen.ok) throw seen.error;
    await store.activate("stage", B1, 30, "add", seen.state.revision);
    const before = readFileSync(store.file);
    const stale = store.activate("prod", B1, 30, "replace", seen.state.revision);
    await expect(stale).rejects.toBeInstanceOf(StaleRevisionError);
    await expect(stale).rejects.toMatchObject({ expected: 1, actual: 2, file: store.file });
    await expect(store.revoke("dev", 1)).rejects.toBeInstanceOf(StaleRevisionError);
    expect(readFileSync(store.file).equals(before)).toBe(true);
  });

  it("a stale writer cannot restore a lease after `target clear`", async () => {
    const { store } = setup();
    await store.activate("prod", B1, 30, "replace");
    const prompt = store.read(); // an approval window opened here…
    if (!prompt.ok) throw prompt.error;
    await store.clear(); // …the operator clears…
    // …and the approval lands late: it must not bring the lease back.
    await expect(store.activate("prod", B1, 30, "add", prompt.state.revision)).rejects.toBeInstanceOf(StaleRevisionError);
    expect(store.isActive("prod", B1)).toBe(false);
  });

  it("clear writes a new revision even with nothing to clear, so a prompt prepared on an empty state goes stale", async () => {
    const { store } = setup();
    expect((await store.clear()).state.revision).toBe(1);
    await expect(store.activate("prod", B1, 30, "add", 0)).rejects.toBeInstanceOf(StaleRevisionError);
  });
});

describe("LeaseStore.startWhileActive", () => {
  it("does not start anything for an inactive target", async () => {
    const { store } = setup();
    let started = false;
    const result = await store.startWhileActive("prod", B1, () => {
      started = true;
      return Promise.resolve(1);
    });
    expect(result).toEqual({ active: false });
    expect(started).toBe(false);
  });

  it("holds the lock during start(): a concurrent clear waits for it, and afterwards the target is inactive", async () => {
    // The clear's wait for the lock is not what is tested: a budget past the test's own timeout keeps a loaded machine from failing it.
    const { store } = setup({ lockTiming: { ...STATE_LOCK_TIMING, waitMs: 120_000 } });
    await store.activate("prod", B1, 30, "replace");
    const gate = deferred();
    const events: string[] = [];
    const run = store.startWhileActive("prod", B1, async () => {
      events.push("start");
      await gate.promise;
      events.push("spawned");
      return "pid-1";
    });
    // The start runs only once the lock is held: wait for it rather than a fixed 50 ms.
    await vi.waitFor(() => expect(events).toEqual(["start"]), { timeout: 30_000 });
    expect(existsSync(`${store.file}.lock`)).toBe(true);
    const clearing = store.clear().then((result) => {
      events.push("cleared");
      return result;
    });
    // A clear that ignored the lock would be done within this pause; a slower machine only gives it longer.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(events).toEqual(["start"]);
    gate.resolve();
    expect(await run).toEqual({ active: true, value: "pid-1" });
    expect((await clearing).cleared).toEqual(["prod"]);
    expect(events).toEqual(["start", "spawned", "cleared"]);
    expect(await store.startWhileActive("prod", B1, () => Promise.resolve("pid-2"))).toEqual({ active: false });
  });

  it("releases the lock when start() throws, and passes the error on unchanged", async () => {
    const { store } = setup();
    await store.activate("prod", B1, 30, "replace");
    const failure = Object.assign(new Error("spawn ENOENT"), { code: "ENOENT" });
    await expect(store.startWhileActive("prod", B1, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(existsSync(`${store.file}.lock`)).toBe(false);
    await store.revoke("prod");
  });

  it("startNowWhileActive (the child host's start) passes a start's own coded error on unchanged, not as a lock error", async () => {
    const { store } = setup();
    await store.activate("prod", B1, 30, "replace");
    const failure = Object.assign(new Error("cannot launch: missing"), { code: "ENOENT" });
    await expect(store.startNowWhileActive("prod", B1, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(existsSync(`${store.file}.lock`)).toBe(false);
  });
});

describe("LeaseStore: the lock", () => {
  it("gives up with LockTimeoutError after the bounded wait when another holder keeps the lock", async () => {
    const { dir, store } = setup({ lockTiming: { ...TEST_LOCK_TIMING, waitMs: 300 } });
    await store.activate("prod", B1, 30, "replace");
    const lockPath = path.join(dir, `${LEASE_FILE}.lock`);
    mkdirSync(lockPath);
    const refused = await store.activate("dev", B1, 30, "add").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LockTimeoutError);
    // It gave up because the lock stayed held for its whole wait (the lock's own monotonic count), not at the first refusal.
    expect((refused as LockTimeoutError).waitedMs).toBeGreaterThanOrEqual(300);
    expect(existsSync(lockPath)).toBe(true);
    rmdirSync(lockPath);
    expect(store.isActive("prod", B1)).toBe(true);
  });

  it("aborts the write before the rename when the lock is lost mid-write (lock directory removed)", async () => {
    const gate = deferred();
    const reached = deferred();
    const slowSync = fsWithSlowSync(() => {
      reached.resolve();
      return gate.promise;
    });
    const { dir, clock } = setup();
    const plain = new LeaseStore(dir, { clock: clock.now, lockTiming: TEST_LOCK_TIMING });
    await plain.activate("prod", B1, 30, "replace");
    const before = readFileSync(plain.file);
    const slow = new LeaseStore(dir, { clock: clock.now, lockTiming: TEST_LOCK_TIMING, fs: slowSync });
    const write = slow.activate("dev", B1, 30, "replace");
    await reached.promise;
    rmdirSync(`${plain.file}.lock`); // someone breaks the lock by hand
    // No pause for the holder's refresh: the check just before the rename finds the lock gone whenever it runs.
    gate.resolve();
    await expect(write).rejects.toBeInstanceOf(LockCompromisedError);
    expect(readFileSync(plain.file).equals(before)).toBe(true);
    expect(tempFiles(dir)).toEqual([]);
  });

  it("aborts the write before the rename when its lock directory was replaced by another holder's (a takeover): it never lands under another holder's lock", async () => {
    const gate = deferred();
    const reached = deferred();
    const slowSync = fsWithSlowSync(() => {
      reached.resolve();
      return gate.promise;
    });
    const { dir, clock } = setup();
    const plain = new LeaseStore(dir, { clock: clock.now, lockTiming: TEST_LOCK_TIMING });
    await plain.activate("prod", B1, 30, "replace");
    const slow = new LeaseStore(dir, { clock: clock.now, lockTiming: TEST_LOCK_TIMING, fs: slowSync });
    const write = slow.activate("dev", B1, 30, "add");
    await reached.promise;
    // Another process judged the lock stale (a wall-clock step forward makes a fresh lock look old) and took it
    // over: its own directory now stands at the lock path, and whatever it writes (a clear) must not be overwritten.
    const lockPath = `${plain.file}.lock`;
    const before = readFileSync(plain.file);
    rmdirSync(lockPath);
    mkdirSync(lockPath);
    gate.resolve();
    await expect(write).rejects.toBeInstanceOf(LockCompromisedError);
    expect(readFileSync(plain.file).equals(before)).toBe(true);
    expect(tempFiles(dir)).toEqual([]);
    expect(existsSync(lockPath)).toBe(true); // the other holder's lock is left to it
    rmdirSync(lockPath);
  });

  it("aborts a write that held the lock for more than half the stale period (it may have been taken over)", async () => {
    const slowSync = fsWithSlowSync(() => new Promise((resolve) => setTimeout(resolve, TEST_LOCK_TIMING.stale / 2 + 100)));
    const { dir, store } = setup({ fs: slowSync, lockTiming: TEST_LOCK_TIMING });
    await expect(store.activate("prod", B1, 30, "replace")).rejects.toBeInstanceOf(LockCompromisedError);
    expect(existsSync(store.file)).toBe(false);
    expect(tempFiles(dir)).toEqual([]);
  });
});

describe("LeaseStore under injected faults (each step of the write in turn)", () => {
  /** old: prod active at revision 1; the faulted write replaces it with dev at revision 2. */
  async function expected(): Promise<{ old: Buffer; new: Buffer }> {
    const { store } = setup();
    await store.activate("prod", B1, 30, "replace");
    const old = readFileSync(store.file);
    await store.activate("dev", B2, 30, "replace");
    return { old, new: readFileSync(store.file) };
  }

  for (const mode of ["error", "crash"] as const) {
    it(`an ${mode} at every step leaves the old state or the new one, whole, and a restarted store reads it`, async () => {
      const bytes = await expected();
      const outcomes = new Set<string>();
      for (let failAt = 1; ; failAt += 1) {
        const { dir, clock } = setup();
        const first = new LeaseStore(dir, { clock: clock.now, lockTiming: STATE_LOCK_TIMING });
        await first.activate("prod", B1, 30, "replace");
        const fs = new FaultyFs(failAt, mode);
        const faulty = new LeaseStore(dir, { clock: clock.now, lockTiming: STATE_LOCK_TIMING, fs });
        const outcome = await faulty.activate("dev", B2, 30, "replace").then(
          () => "ok",
          (error: unknown) => error,
        );
        if (outcome === "ok") {
          expect(failAt).toBe(9); // 8 steps on POSIX, all passed
          break;
        }
        expect(outcome).toBeInstanceOf(StateError);
        expect((outcome as StateError).cause).toBeInstanceOf(InjectedFault);
        const onDisk = snapshot(first.file)!;
        const isOld = onDisk.equals(bytes.old);
        expect(isOld || onDisk.equals(bytes.new)).toBe(true);
        outcomes.add(isOld ? "old" : "new");
        // A restart (new objects over the same files) reads exactly that state; no temp file is taken for state.
        const restarted = new LeaseStore(dir, { clock: clock.now, lockTiming: STATE_LOCK_TIMING });
        expect(restarted.read()).toMatchObject({ ok: true, state: { revision: isOld ? 1 : 2 } });
        expect(restarted.isActive("prod", B1)).toBe(isOld);
        expect(restarted.isActive("dev", B2)).toBe(!isOld);
        if (mode === "error") expect(tempFiles(dir)).toEqual([]);
        await restarted.activate("stage", B1, 30, "add");
        expect(tempFiles(dir)).toEqual([]);
        expect(existsSync(`${first.file}.lock`)).toBe(false);
      }
      expect([...outcomes].sort()).toEqual(["new", "old"]);
    });
  }
});
