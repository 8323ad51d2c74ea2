/**
 * A grant answer and a revocation of that scope's grants: the waiting server
 * carries an answer out only when it notices it, so a `torii grant clear` (or
 * `revoke`) the operator ran after answering could come before the grant is
 * written, and the late write would undo it. The order is driven here by
 * calling the server's applyAnswer after the terminal's commands (no timing):
 * the answer recorded by `torii approvals approve --for`, then the clear, then
 * the carrying-out must write nothing and deny the call; answer, carry out,
 * clear still removes the grant.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test, vi } from "vitest";
import { applyAnswer, type RuleEditor } from "../../../src/approval/apply-answer.js";
import { loadRegistry } from "../../../src/config/registry.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../../src/pipeline/gates.js";
import { ApprovalStore, type ApprovalRecord } from "../../../src/state/approval-store.js";
import { StateWrittenError } from "../../../src/state/errors.js";
import { grantEvidence, grantFingerprint } from "../../../src/state/fingerprints.js";
import { GrantStore, grantsFileOf } from "../../../src/state/grant-store.js";
import { makeConfigTree } from "../../support/config-tree.js";
import { runCli } from "../../support/run-cli.js";

const KUBE = `version: "1"
name: kube
tool: kube
command: recorder
targeting:
  mode: kubectl_context
argv:
  parser: pflag
  commands:
    - path: [get]
`;

const IDP = `version: "1"
name: idp
tool: idp
command: echo
`;

const ARGV = ["get", "pods"];

const noRules: RuleEditor = { offers: () => [], add: () => Promise.reject(new Error("no rules in this test")) };

function makeTree(): string {
  return makeConfigTree({
    "settings.yaml": 'version: "1"\n',
    "providers/idp/provider.yaml": IDP,
    "providers/kube/provider.yaml": KUBE,
    "providers/kube/rules.yaml": 'version: "1"\naccept: []\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: idp}\n',
  });
}

/** A pending call approval of kube `target` for ARGV, waited on by this process (as the server writes it). */
async function pendingCall(root: string, id: string, target: string): Promise<void> {
  const now = Date.now();
  await new ApprovalStore(root).create({
    id,
    kind: "call",
    tool: "kube",
    target,
    argv: [...ARGV],
    page: `http://127.0.0.1:1/a/${id}`,
    page_secrets: [],
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 3_600_000).toISOString(),
  });
}

/** The server's request for ARGV on kube `target`. */
function requestOf(root: string, target: string): ApprovalRequest {
  const provider = loadRegistry(root).providers.get("kube");
  const entry = provider?.targets.get(target);
  if (provider === undefined || entry === undefined) throw new Error(`the tree has no kube/${target}`);
  return {
    provider,
    target: entry,
    canonicalTokens: ARGV,
    description: undefined,
    reason: "no rule",
    grants: { exact: ARGV.join(" "), prefixes: [] } as unknown as ApprovalRequest["grants"],
    signal: new AbortController().signal,
  };
}

/** What the waiting server does once it notices the answer in approval `id`. */
async function carryOut(root: string, id: string, target = "dev"): Promise<ApprovalAnswer> {
  const store = new ApprovalStore(root);
  const record = store.read(id) as ApprovalRecord;
  if (record.answer === undefined) throw new Error(`approval ${id} holds no answer`);
  return applyAnswer(record.answer, requestOf(root, target), { settings: DEFAULT_SETTINGS, rules: noRules, shownRules: [], approval: { store, id } });
}

async function torii(root: string, ...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runCli(args, { TORII_CONFIG_DIR: root });
}

function liveGrants(root: string, target: string): number {
  const provider = loadRegistry(root).providers.get("kube");
  const listed = new GrantStore(grantsFileOf({ dir: path.join(root, "providers", "kube") }, provider?.targets.get(target))).list();
  if (!listed.ok) throw listed.error;
  return listed.entries.length;
}

const ID = "0123456789abcdef";
const OTHER = "fedcba9876543210";
const EVIDENCE = grantEvidence({ mode: "exact", token_count: ARGV.length, sha256: grantFingerprint("exact", ARGV) });

describe("a grant answer and torii grant clear|revoke of its scope", () => {
  test("answer, then clear, then the server carries the answer out: no grant is written and the call is denied", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    expect((await torii(root, "approvals", "approve", ID, "--for", "30")).status).toBe(0);
    const cleared = await torii(root, "grant", "clear", "kube", "dev", "--json");
    expect(cleared.status).toBe(0);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ action: "grants-cleared", removed: 0, superseded: [ID] });

    const outcome = await carryOut(root, ID);
    expect(outcome).toMatchObject({ result: "deny", source: "human-deny" });
    expect(outcome.result === "deny" ? outcome.reason : "").toContain("grants of kube dev were cleared or revoked after the operator answered");
    expect(liveGrants(root, "dev")).toBe(0);
    expect(new GrantStore(grantsFileOf({ dir: "" }, requestOf(root, "dev").target)).find(ARGV)).toEqual({ kind: "none" });
    expect((new ApprovalStore(root).read(ID) as ApprovalRecord).grant_outcome).toMatchObject({ state: "superseded", by: "torii grant clear" });
  });

  test("answer, then revoke of that grant's evidence, then carrying out: nothing written, the call denied", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    expect((await torii(root, "approvals", "approve", ID, "--for", "30", "--exact")).status).toBe(0);
    const revoked = await torii(root, "grant", "revoke", "kube", "dev", EVIDENCE, "--json");
    expect(revoked.status).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ action: "grant-revoked", removed: 0, superseded: [ID] });
    expect(await carryOut(root, ID)).toMatchObject({ result: "deny", source: "human-deny" });
    expect(liveGrants(root, "dev")).toBe(0);
  });

  test("answer, carry out, then clear: the grant is written, allows the call, and the clear removes it", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    expect((await torii(root, "approvals", "approve", ID, "--for", "30")).status).toBe(0);
    expect(await carryOut(root, ID)).toMatchObject({ result: "allow", source: "human-grant" });
    expect(liveGrants(root, "dev")).toBe(1);
    expect((new ApprovalStore(root).read(ID) as ApprovalRecord).grant_outcome).toMatchObject({ state: "written" });

    const cleared = await torii(root, "grant", "clear", "kube", "dev", "--json");
    expect(JSON.parse(cleared.stdout)).toMatchObject({ removed: 1, superseded: [] });
    expect(liveGrants(root, "dev")).toBe(0);
    // Carried out once: the same answer writes nothing again.
    expect(await carryOut(root, ID)).toMatchObject({ result: "deny" });
    expect(liveGrants(root, "dev")).toBe(0);
  });

  test("a clear of another target, or a revoke of another grant, supersedes nothing: the answer is carried out", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    await pendingCall(root, OTHER, "prod");
    expect((await torii(root, "approvals", "approve", ID, "--for", "30")).status).toBe(0);
    expect((await torii(root, "approvals", "approve", OTHER, "--for", "30")).status).toBe(0);
    expect(JSON.parse((await torii(root, "grant", "clear", "kube", "prod", "--json")).stdout)).toMatchObject({ superseded: [OTHER] });
    const otherEvidence = grantEvidence({ mode: "exact", token_count: 1, sha256: grantFingerprint("exact", ["get"]) });
    expect((await torii(root, "grant", "revoke", "kube", "dev", otherEvidence)).status).toBe(3);
    expect(await carryOut(root, ID)).toMatchObject({ result: "allow", source: "human-grant" });
    expect(liveGrants(root, "dev")).toBe(1);
    expect(await carryOut(root, OTHER, "prod")).toMatchObject({ result: "deny", source: "human-deny" });
    expect(liveGrants(root, "prod")).toBe(0);
  });
});

/** Whether the grants file of kube `target` is locked (its `<file>.lock` directory exists) at this moment. */
function grantsLocked(root: string, target: string): boolean {
  const provider = loadRegistry(root).providers.get("kube");
  return existsSync(`${grantsFileOf({ dir: path.join(root, "providers", "kube") }, provider?.targets.get(target))}.lock`);
}

describe("a target removed while its grant answer waited", () => {
  test("the late grant writes nothing and does not bring the target's directory back; the call is denied", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    expect((await torii(root, "approvals", "approve", ID, "--for", "30")).status).toBe(0);
    const request = requestOf(root, "dev");
    const dir = path.join(root, "providers", "kube", "targets", "dev");
    expect((await torii(root, "target", "remove", "kube", "dev", "--force")).status).toBe(0);
    expect(existsSync(dir)).toBe(false);
    const store = new ApprovalStore(root);
    const answer = (store.read(ID) as ApprovalRecord).answer;
    if (answer === undefined) throw new Error("no answer recorded");
    const outcome = await applyAnswer(answer, request, { settings: DEFAULT_SETTINGS, rules: noRules, shownRules: [], approval: { store, id: ID } });
    expect(outcome).toMatchObject({ result: "deny", source: "human-deny" });
    expect(existsSync(dir)).toBe(false);
  });
});

describe("a revoke that cannot read the grants file", () => {
  test("stops before it supersedes anything, so its 'nothing was changed' holds; the answer then writes nothing over the invalid file either", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    expect((await torii(root, "approvals", "approve", ID, "--for", "30", "--exact")).status).toBe(0);
    const provider = loadRegistry(root).providers.get("kube");
    const grants = grantsFileOf({ dir: path.join(root, "providers", "kube") }, provider?.targets.get("dev"));
    writeFileSync(grants, "version: [torn\n");
    const revoked = await torii(root, "grant", "revoke", "kube", "dev", EVIDENCE);
    expect(revoked.status).not.toBe(0);
    expect(revoked.stderr).toContain("nothing was changed");
    expect((new ApprovalStore(root).read(ID) as ApprovalRecord).grant_outcome).toBeUndefined();
    expect(await carryOut(root, ID)).toMatchObject({ result: "deny", source: "human-deny" });
    expect(readFileSync(grants, "utf8")).toBe("version: [torn\n");
  });
});

describe("the grants file's lock orders the two", () => {
  test("the server claims the answer, and a clear supersedes answers, each while holding the grants file's lock", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    await pendingCall(root, OTHER, "dev");
    const seen: string[] = [];
    const claim = vi.spyOn(ApprovalStore.prototype, "claimGrant");
    const supersede = vi.spyOn(ApprovalStore.prototype, "supersedeGrants");
    onTestFinished(() => {
      claim.mockRestore();
      supersede.mockRestore();
    });
    claim.mockImplementation(async function (this: ApprovalStore, ...args) {
      seen.push(`claim locked=${String(grantsLocked(root, "dev"))}`);
      claim.mockRestore();
      return this.claimGrant(...args);
    });
    supersede.mockImplementation(async function (this: ApprovalStore, ...args) {
      seen.push(`supersede locked=${String(grantsLocked(root, "dev"))}`);
      supersede.mockRestore();
      return this.supersedeGrants(...args);
    });
    expect((await torii(root, "approvals", "approve", ID, "--for", "30")).status).toBe(0);
    expect(await carryOut(root, ID)).toMatchObject({ result: "allow", source: "human-grant" });
    expect((await torii(root, "approvals", "approve", OTHER, "--for", "30", "--prefix", "1")).status).toBe(0);
    expect((await torii(root, "grant", "clear", "kube", "dev")).status).toBe(0);
    expect(seen).toEqual(["claim locked=true", "supersede locked=true"]);
  });

  test("a supersede renamed into place whose next step fails still counts, and the clear goes on to remove the grants", async () => {
    const root = makeTree();
    await pendingCall(root, ID, "dev");
    await pendingCall(root, OTHER, "dev");
    expect((await torii(root, "approvals", "approve", ID, "--for", "30")).status).toBe(0);
    expect(await carryOut(root, ID)).toMatchObject({ result: "allow", source: "human-grant" });
    expect((await torii(root, "approvals", "approve", OTHER, "--for", "30", "--prefix", "1")).status).toBe(0);
    // The pending file's mark is written, then its directory's fsync fails (as state-file.ts reports it).
    const store = ApprovalStore.prototype as unknown as { settleGrant: (id: string, outcome: unknown) => Promise<unknown> };
    const settle = vi.spyOn(store, "settleGrant");
    onTestFinished(() => {
      settle.mockRestore();
    });
    settle.mockImplementation(async function (this: typeof store, id, outcome) {
      settle.mockRestore();
      await this.settleGrant(id, outcome);
      throw new StateWrittenError(id, "the step after it failed: EIO");
    });
    const cleared = await torii(root, "grant", "clear", "kube", "dev", "--json");
    expect(cleared.stderr).toBe("");
    expect(JSON.parse(cleared.stdout)).toMatchObject({ removed: 1, superseded: [OTHER] });
    expect(liveGrants(root, "dev")).toBe(0);
    expect(await carryOut(root, OTHER)).toMatchObject({ result: "deny", source: "human-deny" });
  });
});
