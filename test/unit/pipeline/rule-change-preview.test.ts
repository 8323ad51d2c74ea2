/**
 * Previewing a rules change on a real configuration tree: the shared file is
 * simulated for the provider and each target, a target's file for its target only.
 */
import { describe, expect, it } from "vitest";
import type { RecentCall } from "../../../src/audit/recent-calls.js";
import { loadRegistry } from "../../../src/config/registry.js";
import { previewRuleEdit } from "../../../src/pipeline/rule-change-preview.js";
import { kubeContextProvider, makeConfigTree } from "../../support/config-tree.js";

const TARGET = (name: string) => `version: "1"\nname: ${name}\ncontext: ${name}\nidentity: {provider: idp}\n`;

function tree(targetRules?: string) {
  const root = makeConfigTree({
    "providers/kube/provider.yaml": kubeContextProvider("kubectl"),
    "providers/kube/rules.yaml": 'version: "1"\ndeny: []\naccept: [logs]\n',
    "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: idp\nargv: {parser: plain}\n',
    "providers/idp/rules.yaml": 'version: "1"\n',
    "providers/kube/targets/dev/target.yaml": TARGET("dev"),
    "providers/kube/targets/prod/target.yaml": TARGET("prod"),
    ...(targetRules === undefined ? {} : { "providers/kube/targets/prod/rules.yaml": targetRules }),
  });
  const entry = loadRegistry(root).providers.get("kube");
  if (entry === undefined) throw new Error("kube not loaded");
  return entry;
}

const call = (scope: string, ...head: string[]): RecentCall => ({ scope, head, time: "2026-01-01T00:00:00.000Z", outcome: "denied-headless" });
const RECENT = [call("kube/dev", "get", "pods"), call("kube/prod", "get", "pods"), call("kube/dev", "logs", "web")];

describe("previewRuleEdit", () => {
  it("simulates a shared rule for every scope it is in force for", () => {
    const preview = previewRuleEdit(tree(), undefined, { action: "add", list: "accept", rule: "get pods" }, RECENT);
    expect(preview.changed).toBe(true);
    expect(preview.diff.added.map((rule) => rule.text)).toEqual(["get pods"]);
    expect(preview.scopes.map((scope) => [scope.scope, scope.outcomes.map((o) => `${o.head.join(" ")}:${o.change}`)])).toEqual([
      ["kube", []],
      ["kube/dev", ["get pods:newly-allowed", "logs web:unchanged"]],
      ["kube/prod", ["get pods:newly-allowed"]],
    ]);
  });

  it("a shared accept does not reach a target with its own rules, a shared deny does", () => {
    const own = 'version: "1"\ndeny: []\naccept: [get]\n';
    const accept = previewRuleEdit(tree(own), undefined, { action: "remove", list: "accept", rule: "logs" }, RECENT);
    expect(accept.scopes.find((s) => s.scope === "kube/prod")?.outcomes.map((o) => o.change)).toEqual(["unchanged"]);
    const deny = previewRuleEdit(tree(own), undefined, { action: "add", list: "deny", rule: "get pods" }, RECENT);
    expect(deny.scopes.find((s) => s.scope === "kube/prod")?.outcomes.map((o) => o.change)).toEqual(["newly-denied"]);
  });

  it("a target's first own rules file replaces the shared accepts for that target only, and the preview shows it", () => {
    const preview = previewRuleEdit(tree(), "dev", { action: "add", list: "accept", rule: "get pods" }, RECENT);
    expect(preview.previous).toBeUndefined();
    expect(preview.scopes.map((s) => s.scope)).toEqual(["kube/dev"]);
    expect(preview.scopes[0]?.outcomes.map((o) => `${o.head.join(" ")}:${o.change}`)).toEqual(["get pods:newly-allowed", "logs web:no-longer-allowed"]);
  });

  it("reports a rule that does not compile", () => {
    const preview = previewRuleEdit(tree(), undefined, { action: "add", list: "deny", rule: "/(/" }, RECENT);
    expect(preview.errors.map((error) => error.ref.text)).toEqual(["/(/"]);
  });
});
