/**
 * A call the agent cancels (notifications/cancelled) during its auth lifecycle: the cancel ends the
 * validate command or the identity probe, and that is no verdict on the operator's credentials. Read as
 * one, it audited `session-invalid` or `identity-check-failed` for a session nobody judged, denied the
 * call as `session-invalid` / `identity-mismatch` (telling the agent to have the operator log in again),
 * and the environment strategy stored `invalid` as the session's last check, which `torii auth status`
 * shows as expired: an agent could write that into the operator's state at will.
 *
 * In-process, with the real launcher: the call's signal aborts once the lifecycle command has started
 * (a process killed by the cancel) or just before it starts (canceled before its start).
 */
import path from "node:path";
import { describe, expect, test, vi } from "vitest";
import { loadRegistry } from "../../../src/config/registry.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import type { CallAudit, CallAuditEntry } from "../../../src/pipeline/call-audit.js";
import type { GrantGate, LeaseGate } from "../../../src/pipeline/gates.js";
import { headlessApprover } from "../../../src/pipeline/gates.js";
import { invoke, type InvokeDeps } from "../../../src/pipeline/invoke.js";
import { PolicyCache } from "../../../src/pipeline/policy-cache.js";
import { ScopeMutex } from "../../../src/pipeline/scope-mutex.js";
import { LaunchError, startLaunch, type StartLaunch } from "../../../src/runtime/launcher.js";
import { identityScopeDir, SessionStore } from "../../../src/state/session-store.js";
import { makeConfigTree } from "../../support/config-tree.js";

/** A lifecycle command that runs until it is killed. */
const FOREVER = '["-e", "setInterval(() => {}, 1000)"]';

const root = makeConfigTree({
  "providers/vault/provider.yaml": `version: "1"
name: vault
tool: vault
command: node
auth:
  strategy: environment
  fields:
    - {name: TOKEN_FIELD, label: Token, secret: true}
  validate: {command: node, args: ${FOREVER}}
  cache_ttl_seconds: 0
`,
  "providers/vault/rules.yaml": 'version: "1"\naccept: [read]\n',
  "providers/expired/provider.yaml": `version: "1"
name: expired
tool: expired
command: node
auth:
  strategy: environment
  fields:
    - {name: TOKEN_FIELD, label: Token, secret: true}
  validate: {command: node, args: ["-e", "process.exit(3)"]}
  cache_ttl_seconds: 0
`,
  "providers/expired/rules.yaml": 'version: "1"\naccept: [read]\n',
  "providers/plain/provider.yaml": `version: "1"
name: plain
tool: plain
command: node
auth:
  validate: {command: node, args: ${FOREVER}}
`,
  "providers/plain/rules.yaml": 'version: "1"\naccept: [read]\n',
  "providers/kube/provider.yaml": `version: "1"
name: kube
tool: kube
command: node
targeting:
  mode: credentials
auth:
  identity: {command: node, args: ${FOREVER}, field: user}
`,
  "providers/kube/rules.yaml": 'version: "1"\naccept: [read]\n',
  "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\nidentity: {provider: kube, expect: alice}\n',
});

const activeLeases: LeaseGate = {
  check: () => Promise.resolve({ active: true }),
  startWhileActive: (_provider, _target, start) => start().then((value) => ({ active: true as const, value })),
};
const noGrants: GrantGate = { find: () => Promise.resolve(undefined) };

function recordingAudit(onRecord: (entry: CallAuditEntry) => void): CallAudit & { entries: CallAuditEntry[] } {
  const entries: CallAuditEntry[] = [];
  return {
    entries,
    record: (entry: CallAuditEntry) => {
      entries.push(entry);
      onRecord(entry);
    },
    setPolicyHash: () => undefined,
    setPositionals: () => undefined,
    redactWith: () => undefined,
    flush: () => Promise.resolve(true),
    settled: () => Promise.resolve(),
  };
}

/**
 * `failing-start`: the call is canceled as its lifecycle command fails to start for a reason of its own;
 * `after-exit`: once the command's exit has been seen (the cancel comes too late to end it).
 */
type CancelAt = "after-start" | "before-start" | "before-lifecycle" | "failing-start" | "after-exit";

/** Runs `read x` on `tool` (on `target`); the call's signal aborts at the first launch, as `at` says, or before the lifecycle. */
async function canceledCall(tool: string, at: CancelAt, target?: string) {
  const controller = new AbortController();
  const launches: string[][] = [];
  const start = vi.fn<StartLaunch>(async (request) => {
    launches.push([...request.args]);
    if (at === "before-start") controller.abort();
    if (at === "failing-start") {
      controller.abort();
      throw new LaunchError(request.executable, "EACCES", "permission denied");
    }
    const started = await startLaunch(request);
    if (at === "after-start") {
      expect(started.pid).toBeDefined();
      controller.abort();
    }
    if (at === "after-exit" && launches.length === 1) {
      return {
        pid: started.pid,
        running: started.running.then((result) => {
          controller.abort();
          return result;
        }),
      };
    }
    return started;
  });
  const deps: InvokeDeps = {
    registry: loadRegistry(root),
    settings: DEFAULT_SETTINGS,
    policies: new PolicyCache(),
    leases: activeLeases,
    grants: noGrants,
    approver: headlessApprover,
    start,
    authScopes: new ScopeMutex(),
    serverEnv: { PATH: path.dirname(process.execPath) },
    platform: process.platform,
    selfDir: "/nonexistent",
    cwd: process.cwd(),
  };
  const provider = deps.registry.providers.get(tool)!;
  // Canceled as the allow is recorded, the call goes on to its lifecycle canceled (as one canceled while it waits for the scope's lock).
  const audit = recordingAudit((entry) => {
    if (at === "before-lifecycle" && entry.event === "allowed-by-rules") controller.abort();
  });
  const outcome = await invoke(
    {
      provider,
      target: target === undefined ? undefined : provider.targets.get(target),
      args: ["read", "x"],
      description: undefined,
      signal: controller.signal,
      audit,
    },
    deps,
  );
  return { outcome, audit, launches };
}

const verdicts = (audit: { entries: CallAuditEntry[] }) =>
  audit.entries.filter((entry) => ["session-invalid", "identity-mismatch", "identity-check-failed", "session-ok", "identity-ok"].includes(entry.event));

describe.each(["after-start", "before-start"] as const)("a call canceled %s of its lifecycle command", (at) => {
  test("environment strategy: the stored session keeps its last check, and nothing says it is invalid", async () => {
    const store = new SessionStore(identityScopeDir(path.join(root, "providers", "vault"), "vault"));
    const checkedAt = new Date().toISOString();
    await store.replace({ TOKEN_FIELD: "good-token-0123456789" }, new Date(), { checked_at: checkedAt, result: "valid" });

    const { outcome, audit, launches } = await canceledCall("vault", at);

    const read = store.read();
    expect(read.kind).toBe("ok");
    if (read.kind === "ok") expect(read.session.check).toEqual({ checked_at: checkedAt, result: "valid" });
    expect(verdicts(audit)).toEqual([]);
    expect(audit.entries).toContainEqual(expect.objectContaining({ event: "session-unchecked", detail: "canceled" }));
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.error).toMatch(/canceled during the session check/u);
    expect(outcome.execution).toBeUndefined();
    expect(launches).toHaveLength(1);
  });

  test("inherited strategy: the validate command's end is not audited as an invalid session, nor denied as one", async () => {
    const { outcome, audit, launches } = await canceledCall("plain", at);

    expect(verdicts(audit)).toEqual([]);
    expect(audit.entries).toContainEqual(expect.objectContaining({ event: "session-unchecked", detail: "canceled" }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(outcome.error).toMatch(/canceled during the session check/u);
    expect(launches).toHaveLength(1);
  });

  test("identity probe: its end is not an identity mismatch", async () => {
    const { outcome, audit, launches } = await canceledCall("kube", at, "prod");

    expect(verdicts(audit)).toEqual([expect.objectContaining({ event: "identity-check-failed", detail: "canceled" })]);
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(outcome.error).toMatch(/canceled during the identity check of target prod/u);
    expect(launches).toHaveLength(1);
  });
});

test("a call canceled before its lifecycle reads no stored session and starts nothing", async () => {
  const store = new SessionStore(identityScopeDir(path.join(root, "providers", "vault"), "vault"));
  const checkedAt = new Date().toISOString();
  await store.replace({ TOKEN_FIELD: "good-token-0123456789" }, new Date(), { checked_at: checkedAt, result: "valid" });

  const { outcome, audit, launches } = await canceledCall("vault", "before-lifecycle");

  expect(launches).toEqual([]);
  expect(verdicts(audit)).toEqual([]);
  expect(outcome.error).toMatch(/canceled during the wait for the auth scope of vault/u);
  expect(audit.entries.at(-1)).toEqual(expect.objectContaining({ event: "auth-failed", detail: "canceled" }));
  const read = store.read();
  if (read.kind === "ok") expect(read.session.check).toEqual({ checked_at: checkedAt, result: "valid" });
  else expect.unreachable(read.kind);
});

test("a lifecycle that fails on its own as the call is canceled reports that failure, not a canceled wait for the scope", async () => {
  const { outcome, audit, launches } = await canceledCall("plain", "failing-start");

  expect(launches).toHaveLength(1);
  expect(verdicts(audit)).toEqual([]);
  expect(outcome.error).toMatch(/the auth lifecycle of plain failed: cannot launch .*permission denied \(EACCES\)/u);
  expect(outcome.error).not.toMatch(/canceled/u);
  // The call's closing record says it ended in its lifecycle, as an error of its own.
  expect(audit.entries.at(-1)).toEqual(expect.objectContaining({ event: "auth-failed", detail: "error" }));
});

test("a validate that failed on its own before the cancel came still records the session invalid and denies the call", async () => {
  const store = new SessionStore(identityScopeDir(path.join(root, "providers", "expired"), "expired"));
  await store.replace({ TOKEN_FIELD: "old-token-0123456789" }, new Date(), { checked_at: new Date(0).toISOString(), result: "valid" });

  const { outcome, audit } = await canceledCall("expired", "after-exit");

  expect(audit.entries).toContainEqual(expect.objectContaining({ event: "session-invalid", detail: "exit 3" }));
  expect(outcome.decision).toMatchObject({ result: "deny", source: "session-invalid" });
  const read = store.read();
  if (read.kind === "ok") expect(read.session.check?.result).toBe("invalid");
  else expect.unreachable(read.kind);
});
