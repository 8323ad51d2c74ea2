import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ConfigError } from "../../../src/config/errors.js";
import { loadRegistry, readPolicyTexts } from "../../../src/config/registry.js";
import { makeConfigTree } from "../../support/config-tree.js";

const tree = (): string =>
  makeConfigTree({
    "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: kubectl\ntargeting:\n  mode: credentials\n',
    "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\nidentity: {provider: kube}\n',
    "providers/kube/targets/prod/rules.yaml": 'version: "1"\ndeny: [delete]\naccept: [get pods]\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\nidentity: {provider: kube}\n',
  });

describe("readPolicyTexts", () => {
  test("a target's rules.yaml removed after load fails closed instead of falling back to the shared accepts", () => {
    const root = tree();
    const provider = loadRegistry(root).providers.get("kube")!;
    expect(readPolicyTexts(provider, "prod").target?.file).toBe(path.join(root, "providers/kube/targets/prod/rules.yaml"));
    rmSync(path.join(root, "providers/kube/targets/prod/rules.yaml"));
    expect(() => readPolicyTexts(provider, "prod")).toThrow(ConfigError);
    expect(() => readPolicyTexts(provider, "prod")).toThrow(/removed after the configuration was loaded/u);
  });

  test("a target without its own rules uses the shared file, and one created later takes effect", () => {
    const root = tree();
    const provider = loadRegistry(root).providers.get("kube")!;
    expect(readPolicyTexts(provider, "dev").target).toBeUndefined();
    writeFileSync(path.join(root, "providers/kube/targets/dev/rules.yaml"), 'version: "1"\n');
    expect(readPolicyTexts(provider, "dev").target?.text).toBe('version: "1"\n');
  });
});
