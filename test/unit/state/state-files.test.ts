/**
 * threats.md §3, on real files: every damaged, foreign or unsafe state file
 * fails closed (authorises nothing), is reported with its kind, and stays on
 * disk byte for byte until the operator's `clear`, which keeps a copy.
 */
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { StateError, type StateErrorKind } from "../../../src/state/errors.js";
import { GRANTS_FILE, GrantStore } from "../../../src/state/grant-store.js";
import { LEASE_FILE, LeaseStore } from "../../../src/state/lease-store.js";
import { FakeClock, hex64, snapshot, tempDir, tempFiles } from "./helpers.js";
import { STATE_LOCK_TIMING } from "../../../src/state/lock.js";

const B1 = hex64("b1");
const FUTURE = "2026-03-01T10:30:00.000Z";

function leaseStore(dir: string, clock = new FakeClock()): LeaseStore {
  return new LeaseStore(dir, { clock: clock.now, lockTiming: STATE_LOCK_TIMING });
}

function grantStore(dir: string, clock = new FakeClock()): GrantStore {
  return new GrantStore(path.join(dir, GRANTS_FILE), { clock: clock.now, lockTiming: STATE_LOCK_TIMING });
}

const VALID_LEASES = `version: "1"\nrevision: 4\nauthorizations:\n  - target: prod\n    binding: ${B1}\n    expires_at: ${FUTURE}\n`;

/** Lease files that must fail closed, with the kind they are reported as. */
const BAD_LEASE_FILES: readonly (readonly [string, string | Buffer, StateErrorKind])[] = [
  ["empty", "", "torn"],
  ["blank", "  \n\n", "torn"],
  ["NUL-filled (power loss)", Buffer.alloc(512), "torn"],
  ["valid, then NUL-extended", Buffer.concat([Buffer.from(VALID_LEASES), Buffer.alloc(64)]), "torn"],
  ["bad UTF-8", Buffer.concat([Buffer.from('version: "1"\nrevision: 4\nauthorizations: []\n# '), Buffer.from([0xc3, 0x28, 0xff])]), "torn"],
  ["cut inside a quoted string", 'version: "1', "torn"],
  ["cut mid-entry", VALID_LEASES.slice(0, VALID_LEASES.indexOf("expires_at") + 14), "torn"],
  ["broken YAML", 'version: "1"\nrevision: [4\n', "torn"],
  ["no version", "revision: 4\nauthorizations: []\n", "missing-version"],
  ["a newer version", 'version: "2"\nrevision: 4\nauthorizations: []\n', "unknown-version"],
  ["an unquoted version", "version: 1\nrevision: 4\nauthorizations: []\n", "unknown-version"],
  ["Torii's string revision", 'version: "1"\nrevision: 18c2f-1a2b-0\nauthorizations: []\n', "invalid"],
  ["a negative revision", 'version: "1"\nrevision: -1\nauthorizations: []\n', "invalid"],
  ["a fractional revision", 'version: "1"\nrevision: 1.5\nauthorizations: []\n', "invalid"],
  ["a quoted revision", 'version: "1"\nrevision: "4"\nauthorizations: []\n', "invalid"],
  ["an unknown field", 'version: "1"\nrevision: 4\nauthorizations: []\nowner: me\n', "invalid"],
  ["an unknown entry field", VALID_LEASES.replace("    expires_at", "    note: x\n    expires_at"), "invalid"],
  ["authorizations not a list", 'version: "1"\nrevision: 4\nauthorizations: prod\n', "invalid"],
  ["no authorizations", 'version: "1"\nrevision: 4\n', "invalid"],
  ["a short binding", VALID_LEASES.replace(B1, "abc"), "invalid"],
  ["Torii's numeric expiry", VALID_LEASES.replace(FUTURE, "1772360000"), "invalid"],
  ["an expiry with an offset", VALID_LEASES.replace(FUTURE, "2026-03-01T12:30:00+02:00"), "invalid"],
  ["an impossible date", VALID_LEASES.replace(FUTURE, "2026-02-30T10:30:00.000Z"), "invalid"],
  ["a target name with a slash", VALID_LEASES.replace("target: prod", "target: ../prod"), "invalid"],
  ["a __proto__ key", `__proto__:\n  polluted: true\n${VALID_LEASES}`, "invalid"],
  ["a __proto__ key in an entry", VALID_LEASES.replace("    binding", "    __proto__: {}\n    binding"), "invalid"],
  ["a YAML alias", `version: "1"\nrevision: 4\nauthorizations: &a []\nextra: *a\n`, "invalid"],
  ["a list", "- 1\n- 2\n", "invalid"],
  ["two documents", `${VALID_LEASES}---\n${VALID_LEASES}`, "torn"],
  ["a duplicate target", VALID_LEASES + `  - target: prod\n    binding: ${hex64("b2")}\n    expires_at: ${FUTURE}\n`, "duplicate"],
  ["a duplicate YAML key", 'version: "1"\nrevision: 4\nrevision: 9\nauthorizations: []\n', "duplicate"],
  ["larger than 1 MiB", `version: "1"\nrevision: 4\nauthorizations: []\n${"#".repeat(1024 * 1024)}\n`, "invalid"],
];

describe("a damaged or foreign lease file", () => {
  it.for(BAD_LEASE_FILES)("%s: fails closed and stays on disk until clear keeps a copy", async ([, content, kind]) => {
    const dir = tempDir();
    const file = path.join(dir, LEASE_FILE);
    writeFileSync(file, content, { mode: 0o600 });
    const before = readFileSync(file);
    const store = leaseStore(dir);

    const read = store.read();
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error).toBeInstanceOf(StateError);
    expect(read.error.kind).toBe(kind);
    expect(read.error.file).toBe(file);
    expect(store.isActive("prod", B1)).toBe(false);
    await expect(store.startWhileActive("prod", B1, () => Promise.resolve("started"))).resolves.toEqual({ active: false });
    await expect(store.activate("prod", B1, 15, "add")).rejects.toMatchObject({ name: "StateError", kind });
    await expect(store.revoke("prod")).rejects.toMatchObject({ name: "StateError", kind });
    expect(readFileSync(file).equals(before)).toBe(true);

    const cleared = await store.clear();
    expect(cleared.cleared).toEqual([]);
    expect(cleared.preservedInvalid).toBeDefined();
    expect(readFileSync(cleared.preservedInvalid!).equals(before)).toBe(true);
    expect(statSync(cleared.preservedInvalid!).mode & 0o777).toBe(0o600);
    expect(path.basename(cleared.preservedInvalid!)).toMatch(/^\.target-authorizations\.yaml\.invalid-20260301T100000\.000Z$/);
    expect(store.read()).toEqual({ ok: true, state: cleared.state });
    expect(cleared.state.authorizations).toEqual([]);
  });

  it("clearing an invalid file that still names its revision continues from it", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, LEASE_FILE), 'version: "1"\nrevision: 41\nauthorizations: []\nowner: me\n', { mode: 0o600 });
    const store = leaseStore(dir);
    expect((await store.clear()).state.revision).toBe(42);
    // A second invalid file cleared in the same millisecond gets its own copy.
    writeFileSync(path.join(dir, LEASE_FILE), "garbage: [", { mode: 0o600 });
    const again = await store.clear();
    expect(again.state.revision).toBe(1);
    expect(again.preservedInvalid).toMatch(/\.invalid-20260301T100000\.000Z-1$/);
  });

  it("any cut of a valid file fails closed or keeps a subset of its authorizations, never more", () => {
    const dir = tempDir();
    const entries = ["dev", "prod", "stage"].map((target, index) => ({ target, binding: hex64(`b${index}`), expires_at: FUTURE }));
    const text = `version: "1"\nrevision: 12\nauthorizations:\n${entries.map((entry) => `  - target: ${entry.target}\n    binding: ${entry.binding}\n    expires_at: ${entry.expires_at}\n`).join("")}`;
    const file = path.join(dir, LEASE_FILE);
    let failed = 0;
    for (let cut = 0; cut < text.length; cut += 1) {
      writeFileSync(file, text.slice(0, cut), { mode: 0o600 });
      const read = leaseStore(dir).read();
      if (!read.ok) {
        failed += 1;
        continue;
      }
      expect(read.state.revision).toBe(12);
      for (const authorization of read.state.authorizations) expect(entries).toContainEqual(authorization);
    }
    // Only cuts right after a whole entry (before its newline, or after it and some indentation) still parse.
    expect(text.length - failed).toBeLessThanOrEqual(4 * entries.length);
  });
});

const VALID_GRANTS = `version: "2"\nentries:\n  - expires_at: ${FUTURE}\n    matcher:\n      mode: exact\n      token_count: 2\n      sha256: ${B1}\n`;

const BAD_GRANT_FILES: readonly (readonly [string, string | Buffer, StateErrorKind])[] = [
  ["a legacy tab-separated file", "9999999999\tget pods\n1999999999\tdescribe pod web\n", "legacy"],
  ["empty", "", "torn"],
  ["NUL-filled", Buffer.alloc(100), "torn"],
  ["cut short", VALID_GRANTS.slice(0, -20), "torn"],
  ["no version", "entries: []\n", "missing-version"],
  ["version 1", 'version: "1"\nentries: []\n', "unknown-version"],
  ["Torii's numeric expiry", VALID_GRANTS.replace(FUTURE, "1772360000"), "invalid"],
  ["entries not a list", 'version: "2"\nentries: not-a-list\n', "invalid"],
  ["an unknown mode", VALID_GRANTS.replace("mode: exact", "mode: regex"), "invalid"],
  ["a zero token count", VALID_GRANTS.replace("token_count: 2", "token_count: 0"), "invalid"],
  ["an uppercase digest", VALID_GRANTS.replace(B1, B1.toUpperCase().replace(/0/g, "A")), "invalid"],
  ["a command line instead of a digest", VALID_GRANTS.replace(`sha256: ${B1}`, "command: get pods"), "invalid"],
  [
    "a duplicate matcher",
    VALID_GRANTS + `  - expires_at: 2026-03-01T10:40:00.000Z\n    matcher:\n      mode: exact\n      token_count: 2\n      sha256: ${B1}\n`,
    "duplicate",
  ],
];

describe("a damaged, legacy or foreign grants file", () => {
  it.for(BAD_GRANT_FILES)("%s: authorises nothing, refuses writes, stays on disk until clear keeps a copy", async ([, content, kind]) => {
    const dir = tempDir();
    const file = path.join(dir, GRANTS_FILE);
    writeFileSync(file, content, { mode: 0o600 });
    const before = readFileSync(file);
    const store = grantStore(dir);

    const found = store.find(["get", "pods"]);
    expect(found.kind).toBe("invalid");
    if (found.kind === "invalid") expect(found.error.kind).toBe(kind);
    expect(store.list()).toMatchObject({ ok: false, error: { kind } });
    await expect(store.add("exact", ["get", "pods"], 10)).rejects.toMatchObject({ name: "StateError", kind });
    await expect(store.revoke(`grant:exact:2:${B1.slice(0, 8)}`)).rejects.toMatchObject({ name: "StateError", kind });
    expect(readFileSync(file).equals(before)).toBe(true);

    const cleared = await store.clear();
    expect(cleared.removed).toBe(0);
    expect(readFileSync(cleared.preservedInvalid!).equals(before)).toBe(true);
    expect(store.list()).toEqual({ ok: true, entries: [] });
    await store.add("exact", ["get", "pods"], 10);
    expect(store.find(["get", "pods"]).kind).toBe("match");
  });
});

describe("unsafe state paths are refused", () => {
  function expectUnsafe(store: LeaseStore): void {
    const read = store.read();
    expect(read).toMatchObject({ ok: false, error: { kind: "unsafe-path" } });
    expect(store.isActive("prod", B1)).toBe(false);
  }

  it("a symlinked state file is never read, followed or replaced", async () => {
    const dir = tempDir();
    const elsewhere = path.join(tempDir(), "leases.yaml");
    writeFileSync(elsewhere, VALID_LEASES, { mode: 0o600 });
    symlinkSync(elsewhere, path.join(dir, LEASE_FILE));
    const store = leaseStore(dir);
    expectUnsafe(store);
    await expect(store.activate("prod", B1, 10, "add")).rejects.toMatchObject({ kind: "unsafe-path" });
    await expect(store.clear()).rejects.toMatchObject({ kind: "unsafe-path" });
    expect(readFileSync(elsewhere, "utf8")).toBe(VALID_LEASES);
    expect(statSync(path.join(dir, LEASE_FILE)).isFile()).toBe(true);
  });

  it("a symlinked state directory is refused", async () => {
    const real = tempDir();
    writeFileSync(path.join(real, LEASE_FILE), VALID_LEASES, { mode: 0o600 });
    const link = path.join(tempDir(), "provider");
    symlinkSync(real, link);
    const store = leaseStore(link);
    expectUnsafe(store);
    await expect(store.activate("prod", B1, 10, "add")).rejects.toMatchObject({ kind: "unsafe-path" });
  });

  it("a symlink at the lock path is refused", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, LEASE_FILE), VALID_LEASES, { mode: 0o600 });
    mkdirSync(path.join(dir, "elsewhere"));
    symlinkSync(path.join(dir, "elsewhere"), path.join(dir, `${LEASE_FILE}.lock`));
    const store = leaseStore(dir);
    expectUnsafe(store);
    await expect(store.activate("prod", B1, 10, "add")).rejects.toMatchObject({ kind: "unsafe-path" });
  });

  it.each([0o777, 0o770, 0o722, 0o1777])("a state directory with mode %o (writable by others) is refused", async (mode) => {
    const dir = path.join(tempDir(), "provider");
    mkdirSync(dir);
    writeFileSync(path.join(dir, LEASE_FILE), VALID_LEASES, { mode: 0o600 });
    chmodSync(dir, mode);
    const store = leaseStore(dir);
    expectUnsafe(store);
    await expect(store.activate("prod", B1, 10, "add")).rejects.toMatchObject({ kind: "unsafe-path" });
    expect(readFileSync(path.join(dir, LEASE_FILE), "utf8")).toBe(VALID_LEASES);
  });

  it("a state file writable by others is refused", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, LEASE_FILE), VALID_LEASES);
    chmodSync(path.join(dir, LEASE_FILE), 0o666);
    expectUnsafe(leaseStore(dir));
  });

  it("a hard-linked state file is refused", () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, LEASE_FILE), VALID_LEASES, { mode: 0o600 });
    linkSync(path.join(dir, LEASE_FILE), path.join(dir, "other-name"));
    expectUnsafe(leaseStore(dir));
  });

  it.runIf(process.getuid?.() === 0)("a state directory or file owned by another user is refused", () => {
    const dir = path.join(tempDir(), "provider");
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(path.join(dir, LEASE_FILE), VALID_LEASES, { mode: 0o600 });
    chownSync(path.join(dir, LEASE_FILE), 4242, 4242);
    expectUnsafe(leaseStore(dir));
    chownSync(path.join(dir, LEASE_FILE), 0, 0);
    chownSync(dir, 4242, 4242);
    expectUnsafe(leaseStore(dir));
  });

  it("on Windows the owner and mode checks do not apply, the symlink check does", () => {
    const dir = path.join(tempDir(), "provider");
    mkdirSync(dir);
    writeFileSync(path.join(dir, LEASE_FILE), VALID_LEASES, { mode: 0o600 });
    chmodSync(dir, 0o777);
    const store = new LeaseStore(dir, { clock: new FakeClock().now, platform: "win32" });
    expect(store.isActive("prod", B1)).toBe(true);
    const linked = tempDir();
    symlinkSync(path.join(dir, LEASE_FILE), path.join(linked, LEASE_FILE));
    expect(new LeaseStore(linked, { platform: "win32" }).read()).toMatchObject({ ok: false, error: { kind: "unsafe-path" } });
  });
});

describe("files and directories the stores create", () => {
  it("are 0700 directories and 0600 files, with no temp file left", async () => {
    const providerDir = path.join(tempDir(), "providers", "kubectl");
    const store = leaseStore(providerDir);
    expect(store.read()).toEqual({ ok: true, state: { version: "1", revision: 0, authorizations: [] } });
    expect(existsSync(path.dirname(providerDir))).toBe(false);

    await store.activate("prod", B1, 15, "replace");
    expect(statSync(path.dirname(providerDir)).mode & 0o777).toBe(0o700);
    expect(statSync(providerDir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(tempFiles(providerDir)).toEqual([]);

    const targetGrants = new GrantStore(path.join(providerDir, "targets", "prod", GRANTS_FILE), { lockTiming: STATE_LOCK_TIMING });
    await targetGrants.add("prefix", ["get"], 5);
    expect(statSync(path.join(providerDir, "targets", "prod")).mode & 0o777).toBe(0o700);
    expect(statSync(targetGrants.file).mode & 0o777).toBe(0o600);
    // The lock directory is gone once the write is done.
    expect(readdirSync(providerDir).sort()).toEqual([LEASE_FILE, "targets"]);
  });

  it("leftover temp files from a crash are never read as state and are removed by the next write", async () => {
    const dir = tempDir();
    const store = leaseStore(dir);
    await store.activate("prod", B1, 15, "replace");
    const leftover = path.join(dir, `.${LEASE_FILE}.tmp-99999-0123456789ab`);
    writeFileSync(leftover, 'version: "1"\nrevision: 999\nauthorizations: []\n', { mode: 0o600 });
    expect(store.read()).toMatchObject({ ok: true, state: { revision: 1 } });
    expect(store.isActive("prod", B1)).toBe(true);
    await store.revoke("prod");
    expect(snapshot(leftover)).toBeUndefined();
    expect(store.read()).toMatchObject({ ok: true, state: { revision: 2, authorizations: [] } });
  });
});
