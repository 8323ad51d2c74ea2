/**
 * A lease granted from the approval page whose write fails after the lease
 * file's rename (the directory's fsync): the lease is in force, so the answer
 * is an allow (the pipeline audits it as target-access-replaced), naming what
 * failed, never a deny that the audit would record as target-access-denied
 * while the lease is live.
 */
import path from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { applyLeaseAnswer } from "../../../src/approval/apply-lease-answer.js";
import { loadRegistry } from "../../../src/config/registry.js";
import { nodeAtomicFs } from "../../../src/state/atomic-write.js";
import type { ApprovalRecord } from "../../../src/state/approval-store.js";
import { LeaseStore } from "../../../src/state/lease-store.js";
import { kubeContextProvider, makeConfigTree } from "../../support/config-tree.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("applyLeaseAnswer: a failure after the lease file's rename", () => {
  test("the lease in force is answered as granted, with the failure in who answered (the audit's detail)", async () => {
    const root = makeConfigTree({
      "providers/demo/provider.yaml": 'version: "1"\nname: demo\ntool: demo\ncommand: echo\nargv:\n  parser: plain\n',
      "providers/demo/rules.yaml": 'version: "1"\naccept: []\n',
      "providers/kube/provider.yaml": kubeContextProvider("echo"),
      "providers/kube/rules.yaml": 'version: "1"\naccept: []\n',
      "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: demo}\n',
    });
    const provider = loadRegistry(root).providers.get("kube")!;
    const original = nodeAtomicFs.openDirectory.bind(nodeAtomicFs);
    vi.spyOn(nodeAtomicFs, "openDirectory").mockImplementation(async (dir) => {
      const handle = await original(dir);
      if (path.resolve(dir) !== path.resolve(provider.dir)) return handle;
      return { ...handle, sync: () => Promise.reject(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" })) };
    });
    const record = { lease: { minutes: 15, active: [], revision: 0 } } as unknown as ApprovalRecord;
    const answer = await applyLeaseAnswer(
      { choice: "lease-replace", minutes: 15, channel: "page", by: "", at: new Date().toISOString() },
      { provider, target: provider.targets.get("dev")!, canonicalTokens: ["get"], description: undefined, signal: new AbortController().signal },
      record,
    );
    vi.restoreAllMocks();
    expect(answer).toMatchObject({ result: "allow", mode: "replace", minutes: 15, replaced: [] });
    expect(answer.answeredBy).toMatch(/^page; in force, but the step after it failed: EIO/u);
    const read = new LeaseStore(provider.dir).read();
    expect(read.ok && read.state.authorizations.map((entry) => entry.target)).toEqual(["dev"]);
  });
});
