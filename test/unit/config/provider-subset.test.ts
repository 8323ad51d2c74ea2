/**
 * `loadProviderSubset`: what `torii target activate` reads — one provider and
 * the identity providers its targets name — loaded by the same functions as
 * the whole registry, so a target and its lease binding are the ones the
 * server loads, while unrelated providers are not read at all.
 */
import { describe, expect, it } from "vitest";
import { loadProviderSubset, loadRegistry } from "../../../src/config/registry.js";
import type { Registry } from "../../../src/config/registry.js";
import { leaseBindingOf } from "../../../src/state/lease-status.js";
import { catchConfigError, tempDir, writeTree, yaml } from "./temp-tree.js";

const RULES = yaml('version: "1"', "accept: [get]");
const KUBE = yaml('version: "1"', "name: kube", "tool: kube", "command: kubectl", "targeting:", "  mode: kubectl_context");
const IDP = yaml('version: "1"', "name: idp", "tool: idp", 'command: "true"');
const DEV = yaml('version: "1"', "name: dev", "context: dev-ctx", "identity: {provider: idp}");

function tree(files: Readonly<Record<string, string>>): string {
  const root = tempDir();
  writeTree(root, {
    "providers/kube/provider.yaml": KUBE,
    "providers/kube/rules.yaml": RULES,
    "providers/kube/targets/dev/target.yaml": DEV,
    "providers/idp/provider.yaml": IDP,
    "providers/idp/rules.yaml": RULES,
    ...files,
  });
  return root;
}

function subset(root: string, tool: string): Registry {
  const loaded = loadProviderSubset(root, tool);
  expect(loaded, `no subset for ${tool}`).toBeDefined();
  return loaded!;
}

describe("loadProviderSubset", () => {
  it("loads the provider and its targets' identity providers, and leaves the others unread", () => {
    const root = tree({ "providers/other/provider.yaml": "version: [unclosed\n", "providers/other/rules.yaml": RULES });
    expect(catchConfigError(() => loadRegistry(root)).message).toContain("providers/other/provider.yaml");
    expect([...subset(root, "kube").providersByName.keys()].sort()).toEqual(["idp", "kube"]);
  });

  it("gives a target the configuration and lease binding the whole registry gives it", () => {
    const root = tree({
      "providers/plain/provider.yaml": yaml('version: "1"', "name: plain", "tool: plain", 'command: "true"'),
      "providers/plain/rules.yaml": RULES,
    });
    const whole = loadRegistry(root).providers.get("kube")!;
    const part = subset(root, "kube").providers.get("kube")!;
    const [fromWhole, fromPart] = [whole.targets.get("dev")!, part.targets.get("dev")!];
    expect(fromPart.config).toEqual(fromWhole.config);
    expect(leaseBindingOf(part.name, fromPart)).toBe(leaseBindingOf(whole.name, fromWhole));
  });

  it("reports a target's missing identity provider as the whole registry does", () => {
    const root = tree({ "providers/kube/targets/dev/target.yaml": yaml('version: "1"', "name: dev", "context: dev-ctx", "identity: {provider: gone}") });
    const expected = catchConfigError(() => loadRegistry(root)).message;
    expect(expected).toContain('no installed provider is named "gone"');
    expect(catchConfigError(() => loadProviderSubset(root, "kube")).message).toBe(expected);
  });

  it("reports a target-aware identity provider as the whole registry does", () => {
    const root = tree({ "providers/kube/targets/dev/target.yaml": yaml('version: "1"', "name: dev", "context: dev-ctx", "identity: {provider: kube}") });
    const expected = catchConfigError(() => loadRegistry(root)).message;
    expect(expected).toContain("is target-aware");
    expect(catchConfigError(() => loadProviderSubset(root, "kube")).message).toBe(expected);
  });

  it("finds nothing when no directory is named after the tool, or its provider has another tool, or the name is a path", () => {
    const root = tree({
      "providers/renamed/provider.yaml": yaml('version: "1"', "name: renamed", "tool: kube2", 'command: "true"'),
      "providers/renamed/rules.yaml": RULES,
    });
    expect(loadProviderSubset(root, "kube2")).toBeUndefined();
    expect(loadProviderSubset(root, "renamed")).toBeUndefined();
    expect(loadProviderSubset(root, "missing")).toBeUndefined();
    expect(loadProviderSubset(root, "../providers/kube")).toBeUndefined();
    expect(loadProviderSubset(root, ".")).toBeUndefined();
  });
});
