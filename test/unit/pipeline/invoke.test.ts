/**
 * The pipeline with injected gates: where each lease checkpoint sits, and that
 * a revocation landing at any checkpoint, including at launch, stops the call
 * before the program starts.
 */
import { chmodSync } from "node:fs";
import path from "node:path";
import { describe, expect, test, vi } from "vitest";
import { loadRegistry } from "../../../src/config/registry.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { ScopeMutex } from "../../../src/pipeline/scope-mutex.js";
import { auditFields, type AuditInput } from "../../../src/audit/record.js";
import { createCallAudit, type CallAudit, type CallAuditEntry } from "../../../src/pipeline/call-audit.js";
import type { LeaseCheckpoint, LeaseGate } from "../../../src/pipeline/gates.js";
import { headlessApprover, type GrantGate } from "../../../src/pipeline/gates.js";
import { invoke, type InvokeDeps } from "../../../src/pipeline/invoke.js";
import { PolicyCache } from "../../../src/pipeline/policy-cache.js";
import { startLaunch, type StartLaunch } from "../../../src/runtime/launcher.js";
import { LeaseStore } from "../../../src/state/lease-store.js";
import { makeConfigTree } from "../../support/config-tree.js";
import { alive } from "../../support/processes.js";
import { hex64, TEST_LOCK_TIMING } from "../state/helpers.js";
import { startThief, stallUntil } from "../state/lock-thief.js";

const root = makeConfigTree({
  "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: node\ntargeting:\n  mode: credentials\n',
  "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
  "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\nidentity: {provider: kube}\n',
});

function recordingAudit(): CallAudit & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    record: (entry: CallAuditEntry) => events.push(entry.event),
    setPolicyHash: () => undefined,
    setPositionals: () => undefined,
    redactWith: () => undefined,
    flush: () => Promise.resolve(true),
    settled: () => Promise.resolve(),
  };
}

function leasesRevokedAt(revokedAt: LeaseCheckpoint): LeaseGate & { seen: LeaseCheckpoint[] } {
  const seen: LeaseCheckpoint[] = [];
  return {
    seen,
    check(_provider, _target, checkpoint) {
      seen.push(checkpoint);
      return Promise.resolve(checkpoint === revokedAt ? { active: false, reason: "revoked" } : { active: true });
    },
    startWhileActive(_provider, _target, start) {
      seen.push("at-launch");
      return revokedAt === "at-launch" ? Promise.resolve({ active: false }) : start().then((value) => ({ active: true, value }));
    },
  };
}

/** No grant matches. */
const noGrants: GrantGate = { find: () => Promise.resolve(undefined) };

function depsWith(leases: LeaseGate, launchSpy: StartLaunch): InvokeDeps {
  return {
    registry: loadRegistry(root),
    settings: DEFAULT_SETTINGS,
    policies: new PolicyCache(),
    leases,
    grants: noGrants,
    approver: headlessApprover,
    start: launchSpy,
    authScopes: new ScopeMutex(),
    serverEnv: { PATH: process.env.PATH },
    platform: process.platform,
    selfDir: "/nonexistent",
    cwd: process.cwd(),
  };
}

async function callWith<A extends CallAudit = ReturnType<typeof recordingAudit>>(
  revokedAt: LeaseCheckpoint,
  options: { audit?: A; args?: string[]; onLaunch?: () => void } = {},
) {
  const leases = leasesRevokedAt(revokedAt);
  const launchSpy = vi.fn<StartLaunch>(() => {
    options.onLaunch?.();
    const running = Promise.resolve({
      exitCode: 0,
      signal: null,
      stdout: "",
      stderr: "",
      truncated: false,
      timedOut: false,
      canceled: false,
      durationMs: 1,
      pid: 1,
    });
    return Promise.resolve({ pid: 1, running });
  });
  const deps = depsWith(leases, launchSpy);
  const provider = deps.registry.providers.get("kube")!;
  const audit = options.audit ?? (recordingAudit() as unknown as A);
  const args = options.args ?? ["get", "pods"];
  const outcome = await invoke(
    { provider, target: provider.targets.get("prod"), args, description: undefined, signal: new AbortController().signal, audit },
    deps,
  );
  return { outcome, launchSpy, leases, audit };
}

describe("lease checkpoints", () => {
  test("an active lease is checked at policy time, before env, after auth and at launch, in that order", async () => {
    const { leases, launchSpy } = await callWith("none" as LeaseCheckpoint);
    expect(leases.seen).toEqual(["policy", "before-env", "after-auth", "at-launch"]);
    expect(launchSpy).toHaveBeenCalledTimes(1);
  });

  test.each(["before-env", "after-auth"] as const)("a revocation that lands at %s stops the call (target-access-lost)", async (checkpoint) => {
    const { outcome, launchSpy, audit } = await callWith(checkpoint);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "target-access-lost" });
    expect(launchSpy).not.toHaveBeenCalled();
    expect(audit.events).toContain("target-access-lost");
  });

  test("a revocation that lands before launch stops the call while the lease lock is held", async () => {
    const { outcome, launchSpy } = await callWith("at-launch");
    expect(outcome.decision).toMatchObject({ result: "deny", source: "target-access-lost" });
    expect(launchSpy).not.toHaveBeenCalled();
  });

  test("an inactive target is denied at policy time with no further checkpoint", async () => {
    const { outcome, leases, launchSpy } = await callWith("policy");
    expect(outcome.decision).toMatchObject({ result: "deny", source: "target-inactive" });
    expect(leases.seen).toEqual(["policy"]);
    expect(launchSpy).not.toHaveBeenCalled();
  });
});

describe("a lease lock lost while the process started", () => {
  test("a process started after the server stalled and its lease lock was taken over is killed, and the call fails closed", async () => {
    // The real lease store and its lock; a real process started by the real launcher (a long-running
    // stand-in for the program); after the spawn the server stalls until another process robs the lock.
    const store = new LeaseStore(path.join(root, "providers/kube"), { lockTiming: TEST_LOCK_TIMING });
    await store.activate("prod", hex64("b1"), 30, "replace");
    let pid: number | undefined;
    const leases: LeaseGate = {
      check: () => Promise.resolve({ active: true }),
      startWhileActive: (_provider, _target, start) => store.startNowWhileActive("prod", hex64("b1"), start),
    };
    const stallingStart: StartLaunch = async (request) => {
      const started = await startLaunch({ ...request, executable: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] });
      pid = started.pid;
      const thief = startThief(store.file, TEST_LOCK_TIMING);
      stallUntil(thief.robbed, 60_000);
      return started;
    };
    const deps = depsWith(leases, stallingStart);
    const provider = deps.registry.providers.get("kube")!;
    const audit = recordingAudit();
    const outcome = await invoke(
      { provider, target: provider.targets.get("prod"), args: ["get", "pods"], description: undefined, signal: new AbortController().signal, audit },
      deps,
    );
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toMatch(/^node: the lease lock was lost while the process started \(not refreshed for \d+ ms .*\); the process was killed$/);
    expect(audit.events).toContain("launch-failed");
    expect(audit.events).not.toContain("ran");
    expect(pid).toBeGreaterThan(1);
    await expect.poll(() => alive(pid!)).toBe(false);
  });
});

describe("the call's audit: as few appends as its guarantees allow", () => {
  function batchingAudit() {
    const batches: AuditInput[][] = [];
    const synced: boolean[] = [];
    const deferred: boolean[] = [];
    const sink = {
      appendBatch: (
        records: readonly AuditInput[],
        { onWritten, deferSync, deferWrite }: { onWritten: () => void; deferSync: boolean; deferWrite?: boolean },
      ) => {
        batches.push([...records]);
        synced.push(!deferSync);
        deferred.push(deferWrite === true);
        onWritten();
        return Promise.resolve({ ok: true });
      },
    };
    const audit = createCallAudit(sink, { callId: "c1", scope: "kube/prod" });
    const events = () => batches.map((batch) => batch.map((record) => record.event));
    return { audit, batches, events, synced, deferred };
  }

  test("an allowed call: the allow is one append in the file before the program starts, `ran` one more after, left to the writer (deferWrite)", async () => {
    const { audit, batches, events, synced, deferred } = batchingAudit();
    let atLaunch: string[][] = [];
    await callWith("none" as LeaseCheckpoint, { audit, args: ["get", "pods", "--namespace=SECRET-NS"], onLaunch: () => (atLaunch = events()) });
    expect(atLaunch).toEqual([["invoke", "allowed-by-rules", "session-unchecked"]]);
    await audit.flush({ durable: true });
    expect(events()).toEqual([["invoke", "allowed-by-rules", "session-unchecked"], ["ran"]]);
    expect(synced).toEqual([false, true]);
    // `ran` comes after the program started: it may ride with the writer's next append.
    expect(deferred).toEqual([false, true]);
    // Every record, as written, carries the command words, not the option or its value.
    expect(batches.flat().map((record) => auditFields(record).argv_head)).toEqual(Array(4).fill(["get", "pods"]));
  });

  test("a denied call: one append, after the decision, written and fsynced at once", async () => {
    const { audit, events, synced, deferred } = batchingAudit();
    const { outcome } = await callWith("none" as LeaseCheckpoint, { audit, args: ["delete", "pods"] });
    expect(outcome.decision.result).toBe("deny");
    expect(events()).toEqual([]);
    await audit.flush({ durable: true });
    expect(events()).toEqual([["invoke", "denied-headless"]]);
    expect(synced).toEqual([true]);
    expect(deferred).toEqual([false]);
  });

  test("a refused argv: its records carry no argv head, only the kind and the argument", async () => {
    const { audit, batches } = batchingAudit();
    await callWith("none" as LeaseCheckpoint, { audit, args: ["get", "\u2014token=SECRET"] });
    await audit.flush();
    expect(batches).toEqual([
      [
        { call_id: "c1", scope: "kube/prod", event: "invoke" },
        { call_id: "c1", scope: "kube/prod", event: "denied-argv", source: "argv-rejected", detail: "argument 1" },
      ],
    ]);
  });
});

describe.skipIf(process.platform === "win32")("the call's trust pass", () => {
  test("a directory made writable by others while the operator answered is refused after the answer: the wait ends the pass", async () => {
    const tree = makeConfigTree({
      "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: node\n',
      "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
    });
    const shared = path.join(tree, "providers/kube");
    const launchSpy = vi.fn<StartLaunch>(startLaunch);
    const deps: InvokeDeps = {
      ...depsWith(leasesRevokedAt("none" as LeaseCheckpoint), launchSpy),
      registry: loadRegistry(tree),
      approver: {
        ask: () => {
          // Walked (and passed) by this call's first policy load; the operator's answer comes after the change.
          chmodSync(shared, 0o757);
          return Promise.resolve({ result: "allow", source: "human-once", answeredBy: "page" });
        },
      },
    };
    const provider = deps.registry.providers.get("kube")!;
    const audit = recordingAudit();
    const outcome = await invoke(
      { provider, target: undefined, args: ["describe", "pods"], description: undefined, signal: new AbortController().signal, audit },
      deps,
    );
    chmodSync(shared, 0o755);
    expect(outcome.decision).toMatchObject({ result: "deny", source: "policy-error" });
    expect(outcome.decision.reason).toContain(`fix: chmod go-w ${shared}`);
    expect(launchSpy).not.toHaveBeenCalled();
  });
});
