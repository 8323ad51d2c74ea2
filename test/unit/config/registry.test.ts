import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadRegistry } from "../../../src/config/registry.js";
import { PolicyCache } from "../../../src/pipeline/policy-cache.js";
import type { ProviderEntry, Registry } from "../../../src/config/registry.js";
import { catchConfigError, expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

const IDENTITY = ["auth:", "  identity:", "    command: aws", "    args: [sts, get-caller-identity]", "    field: Account"];

/** provider.yaml texts; line numbers matter to the tests that edit them. */
const AWS = yaml('version: "1"', "name: aws", "tool: aws", "command: aws", "targeting:", "  mode: aws_profile", ...IDENTITY);
const AWS_SSO = yaml('version: "1"', "name: aws-sso", "tool: aws_sso", "command: aws", ...IDENTITY);
const KUBECTL = yaml(
  'version: "1"',
  "name: kubectl",
  "tool: kubectl",
  "command: kubectl",
  "targeting:",
  "  mode: kubectl_context",
  "  locked_options: [--namespace-override]",
  "argv:",
  "  parser: pflag",
  "  options: [{ name: --namespace, short: -n, value: required }]",
  "policy:",
  "  minimum_accept_tokens: 2",
);
const GH = yaml('version: "1"', "name: gh", "tool: gh", "command: gh", "targeting:", "  mode: credentials");
const RULES = yaml('version: "1"', "deny: [delete]", "accept: [get]");

const AWS_PROD = yaml('version: "1"', "name: prod", "identity:", "  provider: aws", "  profile: prod", '  expect: "123456789012"');
const KUBE_PROD = yaml('version: "1"', "name: prod", "context: prod-ctx", "identity:", "  provider: aws-sso", '  expect: "123456789012"');

function tree(files: Readonly<Record<string, string>>): string {
  const root = tempDir();
  writeTree(root, files);
  return root;
}

/** A valid tree with every target mode. */
function fullTree(): string {
  return tree({
    "providers/aws/provider.yaml": AWS,
    "providers/aws/rules.yaml": RULES,
    "providers/aws/targets/prod/target.yaml": AWS_PROD,
    "providers/aws-sso/provider.yaml": AWS_SSO,
    "providers/aws-sso/rules.yaml": RULES,
    "providers/kubectl/provider.yaml": KUBECTL,
    "providers/kubectl/rules.yaml": RULES,
    "providers/kubectl/targets/prod/target.yaml": KUBE_PROD,
    "providers/kubectl/targets/prod/rules.yaml": yaml('version: "1"', "accept: [get pods]"),
    "providers/gh/provider.yaml": GH,
    "providers/gh/rules.yaml": RULES,
    "providers/gh/targets/work/target.yaml": yaml('version: "1"', "name: work", "identity:", "  provider: gh"),
    "providers/gh/targets/personal/target.yaml": yaml('version: "1"', "name: personal", "identity:", "  provider: aws-sso"),
  });
}

function provider(registry: Registry, tool: string): ProviderEntry {
  const entry = registry.providers.get(tool);
  if (entry === undefined) throw new Error(`no provider ${tool}`);
  return entry;
}

const providerFile = (root: string, name: string): string => path.join(root, "providers", name, "provider.yaml");
const targetFile = (root: string, name: string, alias: string): string => path.join(root, "providers", name, "targets", alias, "target.yaml");

describe("loadRegistry: a valid tree", () => {
  it("exposes providers by tool and by name, with their targets", () => {
    const root = fullTree();
    const registry = loadRegistry(root);
    expect([...registry.providers.keys()].sort()).toEqual(["aws", "aws_sso", "gh", "kubectl"]);
    expect(registry.providersByName.get("aws-sso")?.tool).toBe("aws_sso");

    const kubectl = provider(registry, "kubectl");
    expect(kubectl.name).toBe("kubectl");
    expect(kubectl.dir).toBe(path.join(root, "providers", "kubectl"));
    expect(kubectl.rulesPath).toBe(path.join(root, "providers", "kubectl", "rules.yaml"));
    expect(kubectl.targetAware).toBe(true);
    const prod = kubectl.targets.get("prod");
    expect(prod?.config.context).toBe("prod-ctx");
    expect(prod?.config.identity.scope).toBe("prod");
    expect(prod?.hasOwnRules).toBe(true);
    expect(prod?.rulesPath).toBe(path.join(root, "providers", "kubectl", "targets", "prod", "rules.yaml"));

    expect(provider(registry, "aws").targets.get("prod")?.hasOwnRules).toBe(false);
    expect(provider(registry, "aws_sso").targetAware).toBe(false);
    expect(provider(registry, "aws_sso").targets.size).toBe(0);
    expect([...provider(registry, "gh").targets.keys()].sort()).toEqual(["personal", "work"]);
  });

  it("derives the policy context from provider.yaml", () => {
    const context = provider(loadRegistry(fullTree()), "kubectl").policyContext;
    expect(context.tool).toBe("kubectl");
    expect(context.lockedOptions).toContain("--context");
    expect(context.lockedOptions).toContain("--namespace-override");
    expect(context.lockedOptions).toEqual([...context.lockedOptions].sort());
    expect(context.grammar.parser).toBe("pflag");
    expect(context.grammar.options[0]).toEqual({ name: "--namespace", short: "-n", value: "required", repeatable: false });
    expect(context.settings.minimumAcceptTokens).toBe(2);
  });

  it("is empty when there is no providers directory", () => {
    expect(loadRegistry(tempDir()).providers.size).toBe(0);
    expect(loadRegistry(path.join(tempDir(), "absent")).providers.size).toBe(0);
  });

  it("ignores dot-directories and plain files under providers/ and targets/", () => {
    const root = tree({
      "providers/gh/provider.yaml": GH,
      "providers/.cache/junk": "x",
      "providers/README": "notes",
      "providers/gh/targets/.trash/target.yaml": "not: valid",
      "providers/gh/targets/notes.txt": "x",
    });
    const registry = loadRegistry(root);
    expect([...registry.providers.keys()]).toEqual(["gh"]);
    expect(provider(registry, "gh").targets.size).toBe(0);
  });

  it("never reads a .env file", () => {
    // A .env that is a directory fails any attempt to read it.
    const root = fullTree();
    for (const dir of ["providers/aws/.env", "providers/aws/targets/prod/.env", "providers/gh/.env", "providers/gh/prod.env"]) {
      mkdirSync(path.join(root, dir), { recursive: true });
    }
    writeTree(root, { "providers/gh/provider.yaml": `${GH}environment:\n  file: prod.env\n` });
    expect(provider(loadRegistry(root), "gh").config.environment?.file).toBe("prod.env");
  });
});

describe("loadRegistry: structure errors", () => {
  it("refuses a provider directory without provider.yaml", () => {
    const root = tree({ "providers/aws/rules.yaml": RULES });
    expect(catchConfigError(() => loadRegistry(root)).message).toBe(
      `${providerFile(root, "aws")}: missing: every directory under providers/ needs a provider.yaml`,
    );
  });

  it("refuses a target directory without target.yaml", () => {
    const root = tree({ "providers/gh/provider.yaml": GH, "providers/gh/targets/work/rules.yaml": RULES });
    expect(catchConfigError(() => loadRegistry(root)).message).toBe(
      `${targetFile(root, "gh", "work")}: missing: every directory under targets/ needs a target.yaml`,
    );
  });

  it("refuses a provider whose name is not its directory name", () => {
    const root = tree({ "providers/aws-cli/provider.yaml": AWS });
    expectConfigErrorAt(() => loadRegistry(root), providerFile(root, "aws-cli"), 2, 7, /name: must equal the directory name "aws-cli", found "aws"/);
  });

  it("refuses a target whose name is not its directory name", () => {
    const root = tree({
      "providers/gh/provider.yaml": GH,
      "providers/gh/targets/work/target.yaml": yaml('version: "1"', "name: home", "identity:", "  provider: gh"),
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "gh", "work"), 2, 7, /name: must equal the directory name "work", found "home"/);
  });

  it("refuses the reserved tool name", () => {
    const root = tree({ "providers/policy/provider.yaml": yaml('version: "1"', "name: policy", "tool: torii_policy", "command: x") });
    expectConfigErrorAt(() => loadRegistry(root), providerFile(root, "policy"), 3, 7, /tool: "torii_policy" is reserved/);
  });

  it("refuses a duplicate tool, naming both files", () => {
    const root = tree({
      "providers/aws/provider.yaml": AWS,
      "providers/aws2/provider.yaml": yaml('version: "1"', "name: aws2", "# same tool", "tool: aws", "command: aws"),
    });
    const error = expectConfigErrorAt(() => loadRegistry(root), providerFile(root, "aws2"), 4, 7, /tool: "aws" is already the tool of /);
    expect(error.message).toContain(`is already the tool of ${providerFile(root, "aws")}:3:7`);
  });

  it("refuses an environment file that escapes the provider directory", () => {
    const root = tree({ "providers/gh/provider.yaml": `${GH}environment:\n  file: ../aws/.env\n` });
    expectConfigErrorAt(() => loadRegistry(root), providerFile(root, "gh"), 8, 9, /environment\.file: must be a relative path that stays inside/);
  });

  it("reports problems of several files together, each with its position", () => {
    const root = tree({
      "providers/a/provider.yaml": yaml('version: "1"', "name: a", "tool: a", "command: a", "colour: red"),
      "providers/b/provider.yaml": yaml('version: "1"', "name: b", "tool: b b", "command: b"),
    });
    const error = catchConfigError(() => loadRegistry(root));
    expect(error.message.split("\n")).toEqual([
      `${providerFile(root, "a")}:5:1: unknown field "colour"`,
      `${providerFile(root, "b")}:3:7: tool: must be non-empty and contain only ASCII letters, digits, "_", "." and "-"`,
    ]);
  });
});

describe("loadRegistry: identity providers", () => {
  it("refuses an identity provider that is not installed", () => {
    const root = tree({
      "providers/gh/provider.yaml": GH,
      "providers/gh/targets/work/target.yaml": yaml('version: "1"', "name: work", "identity:", "  provider: github"),
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "gh", "work"), 4, 13, /identity\.provider: no installed provider is named "github"/);
  });

  it("matches identity providers by name, not by tool", () => {
    const root = tree({
      "providers/aws-sso/provider.yaml": AWS_SSO,
      "providers/gh/provider.yaml": GH,
      "providers/gh/targets/work/target.yaml": yaml('version: "1"', "name: work", "identity:", "  provider: aws_sso"),
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "gh", "work"), 4, 13, /no installed provider is named "aws_sso"/);
  });

  it("refuses a target-aware identity provider for a kubectl_context target", () => {
    const root = tree({
      "providers/aws/provider.yaml": AWS,
      "providers/kubectl/provider.yaml": KUBECTL,
      "providers/kubectl/targets/prod/target.yaml": yaml('version: "1"', "name: prod", "context: c", "identity:", "  provider: aws"),
    });
    expectConfigErrorAt(
      () => loadRegistry(root),
      targetFile(root, "kubectl", "prod"),
      5,
      13,
      /identity\.provider: aws is target-aware \(targeting\.mode aws_profile\) and cannot be the identity provider of a kubectl_context target/,
    );
  });

  it("refuses a kubectl_context target that is its own identity provider", () => {
    const root = tree({
      "providers/kubectl/provider.yaml": KUBECTL,
      "providers/kubectl/targets/prod/target.yaml": yaml('version: "1"', "name: prod", "context: c", "identity:", "  provider: kubectl"),
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "kubectl", "prod"), 5, 13, /kubectl is target-aware/);
  });

  it("lets a credentials target use its own provider or a provider that is not target-aware", () => {
    const registry = loadRegistry(fullTree());
    expect(provider(registry, "gh").targets.get("work")?.config.identity.provider).toBe("gh");
    expect(provider(registry, "gh").targets.get("personal")?.config.identity.provider).toBe("aws-sso");
  });

  it("refuses a credentials target whose identity provider is another target-aware provider", () => {
    const root = tree({
      "providers/gh/provider.yaml": GH,
      "providers/kubectl/provider.yaml": KUBECTL,
      "providers/gh/targets/work/target.yaml": yaml('version: "1"', "name: work", "identity:", "  provider: kubectl"),
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "gh", "work"), 4, 13, /kubectl is target-aware .* of a credentials target/);
  });

  it("refuses an aws_profile target whose identity provider is another provider", () => {
    const root = tree({
      "providers/aws/provider.yaml": AWS,
      "providers/aws-sso/provider.yaml": AWS_SSO,
      "providers/aws/targets/prod/target.yaml": yaml(
        'version: "1"',
        "name: prod",
        "identity:",
        "  provider: aws-sso",
        "  profile: p",
        '  expect: "123456789012"',
      ),
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "aws", "prod"), 4, 13, /must be this provider itself \(aws\)/);
  });

  it.each([
    ["11 digits", "12345678901"],
    ["a letter", "12345678901a"],
  ])("refuses an aws_profile account id with %s", (_case, account) => {
    const root = tree({
      "providers/aws/provider.yaml": AWS,
      "providers/aws/targets/prod/target.yaml": yaml('version: "1"', "name: prod", "identity:", "  provider: aws", "  profile: p", `  expect: "${account}"`),
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "aws", "prod"), 6, 11, /identity\.expect: must be a 12-digit AWS account id/);
  });

  it("refuses expect when the identity provider has no auth.identity", () => {
    const root = tree({
      "providers/gh/provider.yaml": GH,
      "providers/gh/targets/work/target.yaml": yaml('version: "1"', "name: work", "identity:", "  provider: gh", "  expect: octocat"),
    });
    expectConfigErrorAt(
      () => loadRegistry(root),
      targetFile(root, "gh", "work"),
      5,
      11,
      /identity\.expect: needs the identity provider gh to declare auth\.identity/,
    );
  });

  it("refuses an aws_profile target when the provider itself has no auth.identity", () => {
    const root = tree({
      "providers/aws/provider.yaml": yaml('version: "1"', "name: aws", "tool: aws", "command: aws", "targeting:", "  mode: aws_profile"),
      "providers/aws/targets/prod/target.yaml": AWS_PROD,
    });
    expectConfigErrorAt(() => loadRegistry(root), targetFile(root, "aws", "prod"), 6, 11, /needs the identity provider aws to declare auth\.identity/);
  });
});

/** The one loader of rules (the server's), with a fresh cache so each call reads the files again. */
function loadProviderPolicy(entry: ProviderEntry, alias?: string) {
  const { policy, rules } = new PolicyCache().load(entry, alias);
  return { context: policy.context, rules };
}

describe("loading a provider's rules through PolicyCache", () => {
  it("returns the shared rules and the context for a call without a target", () => {
    const root = fullTree();
    const entry = provider(loadRegistry(root), "aws_sso");
    const policy = loadProviderPolicy(entry);
    expect(policy.context).toBe(entry.policyContext);
    expect(policy.rules).toEqual({
      shared: {
        deny: [{ text: "delete", origin: `${entry.rulesPath}:2:8` }],
        accept: [{ text: "get", origin: `${entry.rulesPath}:3:10` }],
      },
    });
  });

  it("adds the target's own rules when it has a rules.yaml", () => {
    const entry = provider(loadRegistry(fullTree()), "kubectl");
    const { rules } = loadProviderPolicy(entry, "prod");
    expect(rules.shared.deny.map((rule) => rule.text)).toEqual(["delete"]);
    expect(rules.target?.accept).toEqual([{ text: "get pods", origin: `${entry.targets.get("prod")?.rulesPath ?? ""}:2:10` }]);
  });

  it("leaves target out when the target has no rules.yaml", () => {
    const { rules } = loadProviderPolicy(provider(loadRegistry(fullTree()), "aws"), "prod");
    expect(rules.target).toBeUndefined();
    expect("target" in rules).toBe(false);
  });

  it("re-reads the rules on every call", () => {
    const root = fullTree();
    const entry = provider(loadRegistry(root), "kubectl");
    expect(loadProviderPolicy(entry).rules.shared.accept.map((rule) => rule.text)).toEqual(["get"]);
    writeFileSync(entry.rulesPath, yaml('version: "1"', "accept: [get, describe]"));
    expect(loadProviderPolicy(entry).rules.shared.accept.map((rule) => rule.text)).toEqual(["get", "describe"]);
    writeFileSync(path.join(entry.dir, "targets", "prod", "rules.yaml"), yaml('version: "1"', "accept: [logs]"));
    expect(loadProviderPolicy(entry, "prod").rules.target?.accept.map((rule) => rule.text)).toEqual(["logs"]);
  });

  it("picks up a target rules.yaml created after the registry was loaded", () => {
    const root = fullTree();
    const entry = provider(loadRegistry(root), "aws");
    writeFileSync(path.join(entry.dir, "targets", "prod", "rules.yaml"), yaml('version: "1"', "deny: [iam]"));
    expect(loadProviderPolicy(entry, "prod").rules.target?.deny.map((rule) => rule.text)).toEqual(["iam"]);
  });

  it("fails when the shared rules.yaml is missing", () => {
    const root = tree({ "providers/gh/provider.yaml": GH });
    const entry = provider(loadRegistry(root), "gh");
    expect(catchConfigError(() => loadProviderPolicy(entry)).message).toBe(`${entry.rulesPath}: file not found`);
  });

  it("fails for an unknown target alias", () => {
    const entry = provider(loadRegistry(fullTree()), "gh");
    expect(catchConfigError(() => loadProviderPolicy(entry, "staging")).detail).toBe('provider gh has no target "staging"');
  });

  it("fails closed on a malformed target rules file, with its position", () => {
    const root = fullTree();
    const entry = provider(loadRegistry(root), "kubectl");
    const file = path.join(entry.dir, "targets", "prod", "rules.yaml");
    writeFileSync(file, yaml('version: "1"', "accept:", "  - get pods", "  - [nested]"));
    expectConfigErrorAt(() => loadProviderPolicy(entry, "prod"), file, 4, 5, /accept\[1\]: .*expected string/);
  });
});
