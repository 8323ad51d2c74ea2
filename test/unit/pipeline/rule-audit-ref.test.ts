/**
 * A rule reaches the audit log by reference (list, place in rules.yaml, short
 * digest of its text), never by its text: a rule is a regex over the canonical
 * argv, option values included, and the approval page's "Always allow" writes
 * the call's whole argv as one. Checked for every record that names a rule:
 * an accept rule (`allowed-by-rules`), a deny rule (`denied-explicit`), and a
 * rule the operator adds from the page (`policy-accept-added`, then
 * `allowed-by-rules`).
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test, vi } from "vitest";
import { auditFields, type AuditFields, type AuditInput } from "../../../src/audit/record.js";
import { auditRuleRef } from "../../../src/audit/rule-ref.js";
import { fileRuleEditor } from "../../../src/approval/rule-offers.js";
import { loadRegistry } from "../../../src/config/registry.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { createCallAudit } from "../../../src/pipeline/call-audit.js";
import type { Approver, ApprovalRequest } from "../../../src/pipeline/gates.js";
import { invoke, type InvokeDeps } from "../../../src/pipeline/invoke.js";
import { PolicyCache } from "../../../src/pipeline/policy-cache.js";
import { ScopeMutex } from "../../../src/pipeline/scope-mutex.js";
import type { StartLaunch } from "../../../src/runtime/launcher.js";
import { makeConfigTree } from "../../support/config-tree.js";

const digest = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 12);

const RULES = 'version: "1"\ndeny:\n  - "/namespace=DENIED-VALUE/"\naccept:\n  - "/namespace=ACCEPTED-VALUE/"\n';

function setup(approver: Approver) {
  const root = makeConfigTree({
    "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: node\ntargeting:\n  mode: credentials\n',
    "providers/kube/rules.yaml": RULES,
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\nidentity: {provider: kube}\n',
  });
  const start = vi.fn<StartLaunch>(() =>
    Promise.resolve({
      pid: 1,
      running: Promise.resolve({
        exitCode: 0,
        signal: null,
        stdout: "",
        stderr: "",
        truncated: false,
        timedOut: false,
        canceled: false,
        durationMs: 1,
        pid: 1,
      }),
    }),
  );
  const deps: InvokeDeps = {
    registry: loadRegistry(root),
    settings: DEFAULT_SETTINGS,
    policies: new PolicyCache(),
    leases: { check: () => Promise.resolve({ active: true }), startWhileActive: (_p, _t, run) => run().then((value) => ({ active: true, value })) },
    grants: { find: () => Promise.resolve(undefined) },
    approver,
    start,
    authScopes: new ScopeMutex(),
    serverEnv: { PATH: process.env.PATH },
    platform: process.platform,
    selfDir: "/nonexistent",
    cwd: process.cwd(),
  };
  const provider = deps.registry.providers.get("kube")!;
  const call = async (args: string[]): Promise<AuditFields[]> => {
    const batches: AuditInput[] = [];
    const audit = createCallAudit(
      {
        appendBatch: (records: readonly AuditInput[], { onWritten }: { onWritten: () => void }) => {
          batches.push(...records);
          onWritten();
          return Promise.resolve({ ok: true });
        },
      },
      { callId: "c1", scope: "kube/prod" },
    );
    await invoke({ provider, target: provider.targets.get("prod"), args, description: undefined, signal: new AbortController().signal, audit }, deps);
    await audit.flush({ durable: true });
    // As written: auditFields is what the log's writer applies (the argv head keeps only the leading positionals).
    return batches.map((record) => auditFields(record));
  };
  return { root, provider, call };
}

const headless: Approver = { ask: () => Promise.resolve({ result: "deny", source: "headless", reason: "headless" }) };

describe("the audit names rules by reference, never by their text", () => {
  test("an accept rule holding an option value: allowed-by-rules carries list, place and digest", async () => {
    const { call } = setup(headless);
    const records = await call(["describe", "pods", "--namespace=ACCEPTED-VALUE"]);
    expect(records.find((record) => record.event === "allowed-by-rules")?.rule).toBe(`accept rules.yaml:5 sha256:${digest("/namespace=ACCEPTED-VALUE/")}`);
    expect(JSON.stringify(records)).not.toContain("ACCEPTED-VALUE");
  });

  test("a deny rule holding an option value: denied-explicit carries list, place and digest", async () => {
    const { call } = setup(headless);
    const records = await call(["describe", "pods", "--namespace=DENIED-VALUE"]);
    expect(records.find((record) => record.event === "denied-explicit")?.rule).toBe(`deny rules.yaml:3 sha256:${digest("/namespace=DENIED-VALUE/")}`);
    expect(JSON.stringify(records)).not.toContain("DENIED-VALUE");
  });

  test('"Always allow" from the page: the rule written to rules.yaml is audited by its place and digest, not its text', async () => {
    const editors: ReturnType<typeof fileRuleEditor>[] = [];
    let written = "";
    const approver: Approver = {
      async ask(request: ApprovalRequest) {
        const editor = editors[0]!;
        const offer = editor.offers(request).find((candidate) => candidate.effect === "accept")!;
        written = offer.rule;
        const addedRule = await editor.add(request, "accept", [offer]);
        return { result: "allow", source: "rules", answeredBy: "page", addedRule };
      },
    };
    const { root, call } = setup(approver);
    writeFileSync(path.join(root, "audit.jsonl"), "");
    editors.push(fileRuleEditor(path.join(root, "audit.jsonl")));
    const records = await call(["logs", "web-1", "--container=ALWAYS-VALUE"]);
    expect(written).toContain("ALWAYS-VALUE");
    const ref = `accept rules.yaml:6 sha256:${digest(written)}`;
    expect(records.filter((record) => record.rule !== undefined).map((record) => [record.event, record.rule])).toEqual([
      ["policy-accept-added", ref],
      ["allowed-by-rules", ref],
    ]);
    expect(JSON.stringify(records)).not.toContain("ALWAYS-VALUE");
  });

  test("a target's own rules file is named relative to the provider's directory", () => {
    expect(auditRuleRef({ list: "deny", origin: "/cfg/providers/kube/targets/prod/rules.yaml:7:5", text: "x" }, "/cfg/providers/kube")).toBe(
      `deny targets/prod/rules.yaml:7 sha256:${digest("x")}`,
    );
  });
});
