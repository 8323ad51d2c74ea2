/**
 * A lease question answered while the provider's leases change: the answer is
 * carried out only on the lease state the question showed. A `torii target
 * clear` (or any other lease write) between the question and the carrying-out
 * could as well have come after the operator's answer, so the activation would
 * undo a revocation the operator made later; and the page's "Add: keep the
 * others active" would keep targets the page never listed. Either way nothing
 * is activated and the call is denied with the reason.
 */
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ApprovalPageServer } from "../../../src/approval/page-server.js";
import { PageApprover } from "../../../src/approval/page-approver.js";
import type { RuleEditor } from "../../../src/approval/apply-answer.js";
import { loadRegistry } from "../../../src/config/registry.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import type { LeaseAnswer } from "../../../src/pipeline/gates.js";
import type { PolicyCache } from "../../../src/pipeline/policy-cache.js";
import { ApprovalStore } from "../../../src/state/approval-store.js";
import { leaseBindingOf } from "../../../src/state/lease-status.js";
import { LeaseStore } from "../../../src/state/lease-store.js";
import { nextPending } from "../../support/approvals.js";
import { leaseRequestTree, liveKubeTargets } from "../../support/lease-requests.js";

const servers: ApprovalPageServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const noRules: RuleEditor = {
  offers: () => [],
  add: () => Promise.reject(new Error("no rules in this test")),
};

/** Asks for a lease on kube/prod through a real PageApprover; resolves with the pending approval's id and the answer to come. */
async function askProd(root: string): Promise<{ id: string; answer: Promise<LeaseAnswer> }> {
  const page = new ApprovalPageServer({ settleMs: 0 });
  servers.push(page);
  const approver = new PageApprover({
    root,
    settings: { ...DEFAULT_SETTINGS, approvalTimeoutSeconds: 60 },
    policies: {} as PolicyCache,
    page,
    open: () => undefined,
    rules: noRules,
  });
  const provider = loadRegistry(root).providers.get("kube");
  const target = provider?.targets.get("prod");
  if (provider === undefined || target === undefined) throw new Error("the lease tree has no kube/prod");
  const answer = approver.askLease({ provider, target, canonicalTokens: ["get", "pods"], description: undefined, signal: new AbortController().signal });
  const pending = await nextPending(root, (record) => record.kind === "lease");
  return { id: pending.id, answer };
}

describe("a lease answer and the leases changing meanwhile", () => {
  test("an answer on unchanged leases activates the lease (the guard below refuses only a change)", async () => {
    const root = leaseRequestTree('version: "1"\n');
    const { id, answer } = await askProd(root);
    const recorded = await new ApprovalStore(root).answer(id, { choice: "lease-replace", channel: "cli", by: "test" });
    expect(recorded.ok).toBe(true);
    expect(await answer).toMatchObject({ result: "allow", mode: "replace" });
    expect(liveKubeTargets(root)).toEqual(["prod"]);
  });

  test("torii target clear while the question waits: the recorded answer activates nothing (the clear may have come after it)", async () => {
    const root = leaseRequestTree('version: "1"\n');
    const { id, answer } = await askProd(root);
    await new LeaseStore(path.join(root, "providers", "kube")).clear();
    const recorded = await new ApprovalStore(root).answer(id, { choice: "lease-replace", channel: "cli", by: "test" });
    expect(recorded.ok).toBe(true);
    const outcome = await answer;
    expect(outcome).toMatchObject({ result: "deny", source: "human-deny" });
    expect(outcome.result === "deny" ? outcome.reason : "").toContain("changed while this request waited");
    expect(liveKubeTargets(root)).toEqual([]);
  });

  test("Add answered after another target was activated, which the page did not list: nothing is activated", async () => {
    const root = leaseRequestTree('version: "1"\n');
    const { id, answer } = await askProd(root);
    const provider = loadRegistry(root).providers.get("kube");
    const dev = provider?.targets.get("dev");
    if (provider === undefined || dev === undefined) throw new Error("the lease tree has no kube/dev");
    await new LeaseStore(provider.dir).activate("dev", leaseBindingOf(provider.name, dev), 5, "replace");
    const recorded = await new ApprovalStore(root).answer(id, { choice: "lease-add", channel: "page", by: "the approval page" });
    expect(recorded.ok).toBe(true);
    expect(await answer).toMatchObject({ result: "deny", source: "human-deny" });
    expect(liveKubeTargets(root)).toEqual(["dev"]);
  });
});
