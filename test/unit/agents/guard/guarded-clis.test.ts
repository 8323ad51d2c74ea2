/**
 * The CLIs the guard protects come from the installed providers' `command`
 * and `tool`, read quickly and held to the same trust rule as the server's;
 * when the configuration does not load, the bundled CLIs stand in and the
 * reason is kept for the refusal message.
 */
import { chmodSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { loadGuardedClis } from "../../../../src/agents/guard/guarded-clis.js";
import { tempDir, writeTree, yaml } from "../../config/temp-tree.js";

const where = (root: string) => [{ TORII_CONFIG_DIR: root }, process.platform, "/nonexistent"] as const;

describe("loadGuardedClis", () => {
  test("every provider's command, by program name, with its MCP tool", async () => {
    const root = tempDir();
    writeTree(root, {
      "providers/kube/provider.yaml": yaml('version: "1"', "name: kube", "tool: kube  # the MCP tool", 'command: "/opt/k8s/bin/kubectl"'),
      "providers/cloud/provider.yaml": yaml('version: "1"', "name: cloud", "tool: 'cloud'", "command: aws"),
    });
    const { clis, problem } = await loadGuardedClis(...where(root));
    expect(problem).toBeUndefined();
    expect(Object.fromEntries(clis)).toEqual({ kubectl: { command: "/opt/k8s/bin/kubectl", tool: "kube" }, aws: { command: "aws", tool: "cloud" } });
  });

  test("a provider.yaml the quick read cannot be sure of is read by the full loader", async () => {
    const root = tempDir();
    writeTree(root, {
      "providers/kube/provider.yaml": yaml('version: "1"', "name: kube", "tool: kube", "command: >-", "  kubectl"),
      "providers/kube/rules.yaml": yaml('version: "1"'),
    });
    const { clis, problem } = await loadGuardedClis(...where(root));
    expect(problem).toBeUndefined();
    expect(clis.get("kubectl")).toEqual({ command: "kubectl", tool: "kube" });
  });

  test("an untrusted provider file: the bundled CLIs are guarded, and the reason is kept", async () => {
    const root = tempDir();
    writeTree(root, { "providers/gh/provider.yaml": yaml('version: "1"', "name: gh", "tool: gh", "command: gh") });
    chmodSync(path.join(root, "providers/gh/provider.yaml"), 0o666);
    const { clis, problem } = await loadGuardedClis(...where(root));
    expect([...clis.keys()].sort()).toEqual(["aws", "az", "gcloud", "kubectl"]);
    expect(problem).toMatch(/configuration did not load .*provider\.yaml: is writable by group or others/u);
  });

  test("no provider installed: the bundled CLIs are guarded", async () => {
    const { clis } = await loadGuardedClis(...where(tempDir()));
    expect(clis.has("kubectl")).toBe(true);
  });
});
