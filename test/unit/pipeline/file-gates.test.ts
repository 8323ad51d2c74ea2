/**
 * The on-disk lease gate at its four checkpoints: cheap when nothing changed
 * (no YAML is parsed again, the launch lock is one mkdir held only while the
 * process is started), and still stopped by every change, including edits
 * that keep a file's size, inode and mtime, and a clear that lands while a
 * writer holds the lock.
 */
import { chmodSync, existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeEach, describe, expect, test, vi } from "vitest";
import * as yaml from "yaml";
import { loadRegistry, type ProviderEntry, type TargetEntry } from "../../../src/config/registry.js";
import { FileLeaseGate } from "../../../src/pipeline/file-gates.js";
import type { LeaseGate } from "../../../src/pipeline/gates.js";
import { targetBinding } from "../../../src/state/fingerprints.js";
import { LeaseStore } from "../../../src/state/lease-store.js";
import { STATE_LOCK_TIMING, withFileLock } from "../../../src/state/lock.js";
import { makeConfigTree } from "../../support/config-tree.js";

vi.mock("yaml", async (importOriginal) => {
  const original = await importOriginal<typeof import("yaml")>();
  return { ...original, parseDocument: vi.fn(original.parseDocument) };
});

const TARGET = 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n';

let provider: ProviderEntry;
let target: TargetEntry;
let store: LeaseStore;

beforeEach(async () => {
  const root = makeConfigTree({
    "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: kubectl\ntargeting:\n  mode: kubectl_context\n',
    "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
    "providers/kube/targets/dev/target.yaml": TARGET,
    "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: idp\n',
    "providers/idp/rules.yaml": 'version: "1"\n',
  });
  const registry = loadRegistry(root);
  provider = registry.providers.get("kube")!;
  target = provider.targets.get("dev")!;
  store = new LeaseStore(provider.dir);
  await store.activate("dev", targetBinding({ provider: "kube", alias: "dev", config: target.config, fileIdentity: target.fileIdentity }), 30, "replace");
});

/** Rewrites `file` in place (same inode) and puts its mtime back, as a coarse-clock or careful editor would. */
function rewriteKeepingMtime(file: string, text: string): void {
  const before = statSync(file);
  expect(Buffer.byteLength(text)).toBe(before.size);
  writeFileSync(file, text);
  utimesSync(file, before.atime, before.mtime);
  expect(statSync(file).ino).toBe(before.ino);
}

describe("FileLeaseGate checkpoints", () => {
  test("after the first check, checks and the launch of an unchanged target parse no YAML", async () => {
    const gate: LeaseGate = new FileLeaseGate();
    expect(await gate.check(provider, target, "policy")).toEqual({ active: true });
    vi.mocked(yaml.parseDocument).mockClear();
    expect(await gate.check(provider, target, "before-env")).toEqual({ active: true });
    expect(await gate.check(provider, target, "after-auth")).toEqual({ active: true });
    expect(await gate.startWhileActive(provider, target, () => Promise.resolve("started"))).toEqual({ active: true, value: "started" });
    expect(vi.mocked(yaml.parseDocument)).not.toHaveBeenCalled();
  });

  test("an edit of target.yaml that keeps its size, inode and mtime still ends the lease", async () => {
    const gate: LeaseGate = new FileLeaseGate();
    expect(await gate.check(provider, target, "policy")).toEqual({ active: true });
    rewriteKeepingMtime(target.file, TARGET.replace("dev-ctx", "ops-ctx"));
    const status = await gate.check(provider, target, "before-env");
    expect(status).toMatchObject({ active: false, reason: expect.stringContaining("target.yaml changed") as unknown });
    expect(await gate.startWhileActive(provider, target, () => Promise.resolve("started"))).toEqual({ active: false });
  });

  test.skipIf(process.platform === "win32")(
    "the trust walk runs at policy and before-env (after any wait for a human); only the checkpoints just before launch reuse it",
    async () => {
      const gate: LeaseGate = new FileLeaseGate();
      const targetDir = path.dirname(target.file);
      const refused = { active: false, reason: expect.stringContaining(targetDir) as unknown };
      expect(await gate.check(provider, target, "policy")).toEqual({ active: true });
      // Loosened while the call waited for a human: before-env walks again and refuses.
      chmodSync(targetDir, 0o770);
      expect(await gate.check(provider, target, "before-env")).toEqual(refused);
      chmodSync(targetDir, 0o700);
      expect(await gate.check(provider, target, "before-env")).toEqual({ active: true });
      // Loosened between authentication and launch: those two checkpoints reuse the before-env walk
      // (the lease binding is still checked), and the next call's first checkpoint refuses.
      chmodSync(targetDir, 0o770);
      expect(await gate.check(provider, target, "after-auth")).toEqual({ active: true });
      expect(await gate.check(provider, target, "policy")).toEqual(refused);
      // After a failed walk no checkpoint skips it.
      expect(await gate.check(provider, target, "after-auth")).toEqual(refused);
      expect(await gate.startWhileActive(provider, target, () => Promise.resolve("started"))).toEqual({ active: false });
      chmodSync(targetDir, 0o700);
      expect(await gate.check(provider, target, "policy")).toEqual({ active: true });
    },
  );

  test("a lease file rewritten in place with the same size and mtime is read again", async () => {
    const gate: LeaseGate = new FileLeaseGate();
    expect(await gate.check(provider, target, "policy")).toEqual({ active: true });
    const text = readFileSync(store.file, "utf8");
    const binding = /binding: ([0-9a-f]{64})/.exec(text)![1]!;
    rewriteKeepingMtime(store.file, text.replace(binding, binding.replace(/^./, binding.startsWith("0") ? "1" : "0")));
    expect(await gate.check(provider, target, "after-auth")).toEqual({ active: false, reason: "no active lease" });
  });

  test("the launch lock is held until start() resolves (the process spawned) and released right after", async () => {
    const gate: LeaseGate = new FileLeaseGate();
    const lockPath = `${store.file}.lock`;
    let heldDuringStart = false;
    let spawned!: (value: string) => void;
    const launched = gate.startWhileActive(provider, target, () => {
      heldDuringStart = existsSync(lockPath);
      return new Promise<string>((resolve) => {
        spawned = resolve;
      });
    });
    await vi.waitFor(
      () => {
        expect(spawned).toBeDefined();
      },
      { timeout: 30_000 },
    );
    expect(heldDuringStart).toBe(true);
    // The start is asynchronous (the child host answers later): until it resolves, a clear must wait.
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(existsSync(lockPath)).toBe(true);
    spawned("pid-1");
    expect(await launched).toEqual({ active: true, value: "pid-1" });
    expect(existsSync(lockPath)).toBe(false);
  });

  test("while a writer holds the lock the launch waits, and a clear it commits stops the start", async () => {
    const gate: LeaseGate = new FileLeaseGate();
    let started = false;
    let launched: Promise<unknown> | undefined;
    await withFileLock(store.file, STATE_LOCK_TIMING, async () => {
      launched = gate.startWhileActive(provider, target, () => {
        started = true;
        return Promise.resolve("started");
      });
      for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(started).toBe(false);
      // What `torii target clear` commits under the lock: a new revision with no lease.
      writeFileSync(store.file, 'version: "1"\nrevision: 2\nauthorizations: []\n');
    });
    expect(await launched).toEqual({ active: false });
    expect(started).toBe(false);
    expect(existsSync(path.join(provider.dir, ".target-authorizations.yaml.lock"))).toBe(false);
  });
});
