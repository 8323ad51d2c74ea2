import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { runCli, runCliProcess } from "../support/run-cli.js";

const PROVIDER = `version: "1"
name: demo
tool: demo
description: a plain provider for tests
command: git
argv:
  parser: plain
`;

const KUBE_PROVIDER = `version: "1"
name: kube
tool: kube
command: kubectl
targeting:
  mode: kubectl_context
  locked_options: [--kuberc]
argv:
  parser: pflag
  options:
    - {name: --namespace, short: -n, value: required}
    - {name: --context, value: required}
    - {name: --server, short: -s, value: required}
  commands:
    - path: [get]
      options:
        - {name: --output, short: -o, value: required}
        - {name: --all-namespaces, short: -A, value: none}
`;

function demoTree(rules: string, extra: Record<string, string> = {}): string {
  return makeConfigTree({
    "providers/demo/provider.yaml": PROVIDER,
    "providers/demo/rules.yaml": rules,
    "providers/kube/provider.yaml": KUBE_PROVIDER,
    "providers/kube/rules.yaml": 'version: "1"\ndeny: [delete]\naccept: [get pods]\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: demo}\n',
    "providers/kube/targets/dev/rules.yaml": 'version: "1"\ndeny: [get secrets]\naccept: [get]\n',
    ...extra,
  });
}

const RULES = 'version: "1"\ndeny:\n  - push\naccept:\n  - status\n  - log --oneline\n';

describe("torii --version, init and config-dir", () => {
  test("--version prints the package version (real process)", () => {
    const result = runCliProcess(["--version"]);
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(manifest.version);
  });

  test("init creates a private root and settings.yaml, and never overwrites it", async () => {
    const root = path.join(makeConfigTree({}), "fresh");
    const first = await runCli(["init"], { TORII_CONFIG_DIR: root });
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`created ${path.join(root, "settings.yaml")}`);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(root, "settings.yaml")).mode & 0o777).toBe(0o600);
    expect(readFileSync(path.join(root, "settings.yaml"), "utf8")).toContain("max_output_bytes: 262144");
    const second = await runCli(["init"], { TORII_CONFIG_DIR: root });
    expect(second.status).toBe(0);
    expect(second.stdout).toContain("kept existing");
  });

  test("config-dir prints TORII_CONFIG_DIR, and refuses a relative one", async () => {
    expect((await runCli(["config-dir"], { TORII_CONFIG_DIR: "/tmp/torii-x" })).stdout.trim()).toBe("/tmp/torii-x");
    const relative = await runCli(["config-dir"], { TORII_CONFIG_DIR: "relative/dir" });
    expect(relative.status).toBe(3);
    expect(relative.stderr).toContain("TORII_CONFIG_DIR");
  });

  test("config-dir defaults to ~/.config/torii", async () => {
    expect((await runCli(["config-dir"], { HOME: "/home/op" })).stdout.trim()).toBe("/home/op/.config/torii");
  });
});

describe("torii policy check", () => {
  const check = async (root: string, args: string[]) => {
    const result = await runCli(["policy", "check", ...args], { TORII_CONFIG_DIR: root });
    return { ...result, json: result.stdout ? (JSON.parse(result.stdout) as Record<string, unknown>) : undefined };
  };

  test("exit code 0 for accept, 1 for deny, 2 for unresolved, with the deciding rule", async () => {
    const root = demoTree(RULES);
    const accept = await check(root, ["demo", "--", "status", "--short"]);
    expect(accept.status).toBe(0);
    expect(accept.json).toMatchObject({ decision: "accept", source: "rules", rule: { text: "status" } });

    const deny = await check(root, ["demo", "--", "push", "origin"]);
    expect(deny.status).toBe(1);
    expect(deny.json).toMatchObject({ decision: "deny", source: "explicit-deny", rule: { text: "push" } });

    const unresolved = await check(root, ["demo", "--", "fetch", "origin"]);
    expect(unresolved.status).toBe(2);
    expect(unresolved.json).toMatchObject({
      decision: "unresolved",
      grants: { exact: { mode: "exact", tokens: ["fetch", "origin"] }, prefix: { mode: "prefix" } },
    });
  });

  test("tokens after -- are the agent's argv, never Torii options", async () => {
    const root = demoTree(RULES);
    const result = await check(root, ["demo", "--", "--version"]);
    expect(result.status).toBe(2);
    expect(result.json).toMatchObject({ canonical_argv: ["--version"] });
  });

  test("a target's rules layer on the shared deny floor", async () => {
    const root = demoTree(RULES);
    expect((await check(root, ["kube", "dev", "--", "delete", "pod", "x"])).json).toMatchObject({
      source: "explicit-deny",
      rule: { text: "delete", layer: "shared" },
    });
    expect((await check(root, ["kube", "dev", "--", "get", "secrets"])).json).toMatchObject({ source: "explicit-deny", rule: { layer: "target" } });
    expect((await check(root, ["kube", "dev", "--", "get", "nodes"])).status).toBe(0);
    expect((await check(root, ["kube", "--", "get", "nodes"])).status).toBe(2);
  });

  test("locked options are refused in every spelling the CLI reads", async () => {
    const root = demoTree(RULES);
    for (const argv of [
      ["get", "pods", "--context=prod"],
      ["get", "pods", "-shttps://evil"],
      ["get", "pods", "-Ashttps://evil"],
      ["--kuberc=/tmp/x", "get", "pods"],
    ]) {
      const result = await check(root, ["kube", "dev", "--", ...argv]);
      expect(result.status, argv.join(" ")).toBe(1);
      expect(result.json, argv.join(" ")).toMatchObject({ decision: "deny", source: "locked-option" });
    }
  });

  test("an unknown target or tool is a clear error with exit code 3", async () => {
    const root = demoTree(RULES);
    const target = await check(root, ["kube", "prod", "--", "get", "pods"]);
    expect(target.status).toBe(3);
    expect(target.stderr).toContain('kube has no target "prod" (targets: dev)');
    const tool = await check(root, ["nope", "--", "x"]);
    expect(tool.status).toBe(3);
    expect(tool.stderr).toContain('unknown provider tool "nope"');
  });

  test("a malformed rules.yaml names file, line and column and decides nothing", async () => {
    const root = demoTree('version: "1"\ndeny:\n  - push\n  accept: [x]\n');
    const result = await check(root, ["demo", "--", "status"]);
    expect(result.status).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/providers\/demo\/rules\.yaml:4:\d+:/u);
  });

  test("without -- the command explains its usage", async () => {
    const root = demoTree(RULES);
    const result = await check(root, ["demo"]);
    expect(result.status).toBe(3);
    expect(result.stderr).toContain("-- <args");
  });
});

describe("torii policy show", () => {
  test("prints shared, target and effective blocks, and warns about ignored accepts", async () => {
    const root = demoTree(RULES);
    const result = await runCli(["policy", "show", "kube", "dev"], { TORII_CONFIG_DIR: root });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("# shared:");
    expect(result.stdout).toContain("# target dev:");
    expect(result.stdout).toMatch(/# effective\nminimum_accept_tokens: 1\ndeny:\n {2}- delete\n {2}- get secrets\naccept:\n {2}- get\n/u);
  });

  test("warns about accept rules below minimum_accept_tokens", async () => {
    const root = demoTree(RULES, {
      "providers/demo/provider.yaml": `${PROVIDER}policy:\n  minimum_accept_tokens: 2\n`,
    });
    const result = await runCli(["policy", "show", "demo"], { TORII_CONFIG_DIR: root });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('# warning: accept rule "status" is ignored');
    const json = JSON.parse((await runCli(["policy", "show", "demo", "--json"], { TORII_CONFIG_DIR: root })).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ accept: ["log --oneline"], ignored_accept: ["status"] });
  });

  test("a rule that does not compile is reported and makes the command fail", async () => {
    const root = demoTree('version: "1"\ndeny: ["/a(/"]\naccept: [status]\n');
    const result = await runCli(["policy", "show", "demo"], { TORII_CONFIG_DIR: root });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/# error: .*rules\.yaml:2:\d+: rule "\/a\(\/"/u);
    const check = await runCli(["policy", "check", "demo", "--", "status"], { TORII_CONFIG_DIR: root });
    expect(JSON.parse(check.stdout)).toMatchObject({ decision: "deny", source: "policy-error" });
  });

  test("a rule the linear-time engine cannot run is refused at load with file:line:col and the construct's name", async () => {
    const root = demoTree("version: \"1\"\ndeny:\n  - push\n  - '/(\\w+) \\1/'\naccept:\n  - status\n  - '/log(?!.*--all)/'\n");
    const result = await runCli(["policy", "show", "demo"], { TORII_CONFIG_DIR: root });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/# error: .*rules\.yaml:4:5: rule ".*\\1\/": .*a backreference \(\\1…\) needs a backtracking engine/u);
    expect(result.stdout).toMatch(/# error: .*rules\.yaml:7:5: rule "\/log\(\?!\.\*--all\)\/": .*a negative lookahead \(\?!…\)/u);
    const check = await runCli(["policy", "check", "demo", "--", "status"], { TORII_CONFIG_DIR: root });
    expect(JSON.parse(check.stdout)).toMatchObject({ decision: "deny", source: "policy-error" });
  });
});
