/**
 * `torii target …` through the built binary, against throw-away configuration
 * trees and a throw-away kubeconfig.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { describe, expect, test } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { ANY_NUMBER, ANY_STRING, expectUsageError, expiresBetween, jsonOutput, runChecked } from "../support/cli-expect.js";
import { runCli, type CliResult } from "../support/run-cli.js";

const IDP = `version: "1"
name: idp
tool: idp
command: echo
auth:
  identity: {command: echo, args: ['{"user":"ana"}'], field: user}
`;

const PLAIN_IDP = `version: "1"
name: plainidp
tool: plainidp
command: echo
`;

const KUBE = kubeContextProvider("kubectl");

const AWS = `version: "1"
name: aws
tool: aws
command: aws
targeting:
  mode: aws_profile
  locked_options: [--profile, --region]
auth:
  identity: {command: aws, args: [sts, get-caller-identity], field: Account}
`;

const VAULT = `version: "1"
name: vault
tool: vault
command: vault
targeting:
  mode: credentials
`;

const RULES = 'version: "1"\ndeny: []\naccept: []\n';

/** The secret in the kubeconfig: no command may ever print it. */
const KUBE_SECRET = "kube-token-SECRET-4242";

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
  - name: c
    cluster: {server: "https://127.0.0.1:6443"}
contexts:
  - name: dev-ctx
    context: {cluster: c, user: u}
  - name: prod-ctx
    context: {cluster: c, user: u}
users:
  - name: u
    user: {token: ${KUBE_SECRET}}
`;

const DEV_TARGET = 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n';
const PROD_TARGET = 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: idp}\n';

interface Tree {
  readonly root: string;
  readonly env: Record<string, string>;
  readonly kubeDir: string;
  readonly leaseFile: string;
}

function makeTree(extra: Record<string, string> = {}): Tree {
  const root = makeConfigTree({
    "providers/idp/provider.yaml": IDP,
    "providers/idp/rules.yaml": RULES,
    "providers/plainidp/provider.yaml": PLAIN_IDP,
    "providers/plainidp/rules.yaml": RULES,
    "providers/kube/provider.yaml": KUBE,
    "providers/kube/rules.yaml": RULES,
    "providers/kube/targets/dev/target.yaml": DEV_TARGET,
    "providers/kube/targets/prod/target.yaml": PROD_TARGET,
    "providers/aws/provider.yaml": AWS,
    "providers/aws/rules.yaml": RULES,
    "providers/vault/provider.yaml": VAULT,
    "providers/vault/rules.yaml": RULES,
    // The operator's default kubeconfig, in the HOME the server's kubectl would get.
    "home/.kube/config": KUBECONFIG,
    ...extra,
  });
  const kubeDir = path.join(root, "providers", "kube");
  return {
    root,
    kubeDir,
    leaseFile: path.join(kubeDir, ".target-authorizations.yaml"),
    env: { TORII_CONFIG_DIR: root, HOME: path.join(root, "home") },
  };
}

function torii(tree: Tree, ...args: string[]): Promise<CliResult> {
  // Never the kubeconfig's credential.
  return runChecked(args, tree.env, [KUBE_SECRET]);
}

function mode(file: string): number {
  return statSync(file).mode & 0o777;
}

describe("torii target add", () => {
  test("kubectl_context: writes a private target.yaml atomically and says a restart is needed", async () => {
    const tree = makeTree();
    const result = await torii(tree, "target", "add", "kube", "staging", "--context", "prod-ctx", "--provider", "idp", "--scope", "team-a", "--expect", "ana");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("added target staging to kube (kubectl_context)");
    expect(result.stdout).toContain("restart the MCP server");
    expect(result.stdout).toContain("torii target activate kube staging");
    const dir = path.join(tree.kubeDir, "targets", "staging");
    const file = path.join(dir, "target.yaml");
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["target.yaml"]);
    expect(parse(readFileSync(file, "utf8"))).toEqual({
      version: "1",
      name: "staging",
      context: "prod-ctx",
      identity: { provider: "idp", scope: "team-a", expect: "ana" },
    });
    // The whole registry still loads, with the new target in it.
    expect((await torii(tree, "policy", "show", "kube", "staging")).status).toBe(0);
    expect(jsonOutput(await torii(tree, "target", "list", "kube", "--json")).targets).toContainEqual(
      expect.objectContaining({ name: "staging", active: false }),
    );
  });

  test("--json prints what was written", async () => {
    const tree = makeTree();
    const out = jsonOutput(await torii(tree, "target", "add", "kube", "qa", "--context", "dev-ctx", "--provider", "idp", "--json"));
    expect(out).toEqual({
      action: "target-added",
      tool: "kube",
      provider: "kube",
      target: "qa",
      mode: "kubectl_context",
      file: path.join(tree.kubeDir, "targets", "qa", "target.yaml"),
      config: { version: "1", name: "qa", context: "dev-ctx", identity: { provider: "idp", scope: "qa" } },
      restart_required: true,
    });
  });

  test("kubectl_context: the context must exist in the kubeconfig the server's kubectl reads (~/.kube/config)", async () => {
    const tree = makeTree();
    const missing = await torii(tree, "target", "add", "kube", "qa", "--context", "nope-ctx", "--provider", "idp");
    expectUsageError(missing, `has no context "nope-ctx" (it has: dev-ctx, prod-ctx)`);
    expect(existsSync(path.join(tree.kubeDir, "targets", "qa"))).toBe(false);

    const noFile = await runCli(["target", "add", "kube", "qa", "--context", "dev-ctx", "--provider", "idp"], {
      ...tree.env,
      HOME: path.join(tree.root, "absent"),
    });
    expectUsageError(noFile, "cannot read the kubeconfig");

    const broken = makeTree({ "home/.kube/config": `contexts: [\nusers: {token: ${KUBE_SECRET}}\n` });
    expectUsageError(await torii(broken, "target", "add", "kube", "qa", "--context", "dev-ctx", "--provider", "idp"), "is not valid YAML");
  });

  test("kubectl_context: the refusal of an unknown context writes out the escapes of the kubeconfig's context names", async () => {
    // A context named with an OSC title sequence and a clear-screen CSI, as anyone who can write the kubeconfig can name one.
    const evil = makeTree({
      "home/.kube/config": 'apiVersion: v1\nkind: Config\ncontexts:\n- name: "evil\\e]0;PWNED\\a\\e[2J\\u009b1m\\u202e"\n  context: {cluster: x, user: y}\n',
    });
    const refused = await torii(evil, "target", "add", "kube", "qa", "--context", "nope-ctx", "--provider", "idp");
    expectUsageError(refused, "(it has: evil\\u{1b}]0;PWNED\\u{7}\\u{1b}[2J\\u{9b}1m\\u{202e})");
    // eslint-disable-next-line no-control-regex -- the control characters are what must not reach the terminal
    expect(refused.stderr).not.toMatch(/[\u001b\u0007\u009b\u202e]/u);
  });

  test("kubectl_context: --context and --provider are required, and the identity provider must be installed and simple", async () => {
    const tree = makeTree();
    expectUsageError(await torii(tree, "target", "add", "kube", "qa", "--provider", "idp"), "--context is required for kubectl_context targets");
    expectUsageError(await torii(tree, "target", "add", "kube", "qa", "--context", "dev-ctx"), "--provider is required for kubectl_context targets");
    expectUsageError(await torii(tree, "target", "add", "kube", "qa", "--context", "dev-ctx", "--provider", "ghost"), 'no installed provider is named "ghost"');
    expectUsageError(await torii(tree, "target", "add", "kube", "qa", "--context", "dev-ctx", "--provider", "aws"), "aws is target-aware");
    expectUsageError(
      await torii(tree, "target", "add", "kube", "qa", "--context", "dev-ctx", "--provider", "idp", "--region", "eu-west-1"),
      "--region does not apply to kubectl_context targets",
    );
    expect(existsSync(path.join(tree.kubeDir, "targets", "qa"))).toBe(false);
  });

  test("refuses an existing target, a bad name, an unknown tool and a provider without targets", async () => {
    const tree = makeTree();
    const before = readFileSync(path.join(tree.kubeDir, "targets", "dev", "target.yaml"), "utf8");
    expectUsageError(await torii(tree, "target", "add", "kube", "dev", "--context", "dev-ctx", "--provider", "idp"), 'kube already has a target "dev"');
    expect(readFileSync(path.join(tree.kubeDir, "targets", "dev", "target.yaml"), "utf8")).toBe(before);
    expectUsageError(await torii(tree, "target", "add", "kube", "../escape", "--context", "dev-ctx", "--provider", "idp"), "target name");
    expectUsageError(await torii(tree, "target", "add", "nope", "x"), 'unknown provider tool "nope"');
    expectUsageError(await torii(tree, "target", "add", "idp", "x"), "idp takes no target");
  });

  test("aws_profile: profile, 12-digit account id (kept as a string) and region; scope defaults to the profile", async () => {
    const tree = makeTree();
    const out = jsonOutput(
      await torii(tree, "target", "add", "aws", "prod", "--profile", "prod-admin", "--account-id", "012345678901", "--region", "eu-west-1", "--json"),
    );
    expect(out.config).toEqual({
      version: "1",
      name: "prod",
      region: "eu-west-1",
      identity: { provider: "aws", scope: "prod-admin", profile: "prod-admin", expect: "012345678901" },
    });
    const text = readFileSync(path.join(tree.root, "providers", "aws", "targets", "prod", "target.yaml"), "utf8");
    expect(text).toContain('"012345678901"');
    expect((await torii(tree, "target", "show", "aws", "prod")).stdout).toContain("expect=012345678901");
  });

  test("aws_profile: refuses an 11-digit account id, missing flags and kubectl flags", async () => {
    const tree = makeTree();
    expectUsageError(
      await torii(tree, "target", "add", "aws", "prod", "--profile", "p", "--account-id", "01234567890"),
      "--account-id must be exactly 12 digits",
    );
    expectUsageError(await torii(tree, "target", "add", "aws", "prod", "--account-id", "012345678901"), "--profile is required for aws_profile targets");
    expectUsageError(await torii(tree, "target", "add", "aws", "prod", "--profile", "p"), "--account-id is required for aws_profile targets");
    expectUsageError(
      await torii(tree, "target", "add", "aws", "prod", "--profile", "p", "--account-id", "012345678901", "--context", "dev-ctx"),
      "--context does not apply to aws_profile targets",
    );
    expectUsageError(
      await torii(tree, "target", "add", "aws", "prod", "--profile", "-p", "--account-id", "012345678901"),
      /would be invalid[\s\S]*must not start with "-"/u,
    );
    expect(existsSync(path.join(tree.root, "providers", "aws", "targets"))).toBe(false);
  });

  test("credentials: the identity provider defaults to the provider itself", async () => {
    const tree = makeTree();
    const out = jsonOutput(await torii(tree, "target", "add", "vault", "team", "--scope", "shared", "--json"));
    expect(out.config).toEqual({ version: "1", name: "team", identity: { provider: "vault", scope: "shared" } });
    const other = jsonOutput(await torii(tree, "target", "add", "vault", "ops", "--provider", "idp", "--expect", "ana", "--json"));
    expect(other.config).toMatchObject({ identity: { provider: "idp", expect: "ana" } });
  });

  test("a target the registry refuses is removed again and reported", async () => {
    const tree = makeTree();
    // plainidp declares no auth.identity, so it cannot check an expected identity.
    const result = await torii(tree, "target", "add", "vault", "team", "--provider", "plainidp", "--expect", "ana");
    expectUsageError(result, /refuses the new target[\s\S]*identity\.expect: needs the identity provider plainidp/u);
    expect(existsSync(path.join(tree.root, "providers", "vault", "targets"))).toBe(false);
    expect((await torii(tree, "policy", "show", "vault")).status).toBe(0);
  });
});

describe("torii target list, show and status", () => {
  test("list shows every alias, active or not, with its expiry", async () => {
    const tree = makeTree();
    expect((await torii(tree, "target", "activate", "kube", "dev", "--for", "30")).status).toBe(0);
    const text = await torii(tree, "target", "list", "kube");
    expect(text.status).toBe(0);
    expect(text.stdout).toMatch(/dev +active until \S+Z \((29|30) min left\)/u);
    expect(text.stdout).toMatch(/prod +inactive/u);
    const out = jsonOutput(await torii(tree, "target", "list", "kube", "--json"));
    expect(out).toMatchObject({ tool: "kube", provider: "kube" });
    expect(out.targets).toEqual([
      { name: "dev", active: true, expires_at: ANY_STRING, remaining_minutes: ANY_NUMBER, stale: false },
      { name: "prod", active: false, expires_at: null, remaining_minutes: null, stale: false },
    ]);
  });

  test("show prints the target.yaml fields and the lease", async () => {
    const tree = makeTree({ "providers/kube/targets/dev/rules.yaml": RULES, "providers/kube/targets/dev/.env": `TOKEN=${KUBE_SECRET}\n` });
    const text = await torii(tree, "target", "show", "kube", "dev");
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("context: dev-ctx");
    expect(text.stdout).toContain("identity: provider=idp scope=dev");
    expect(text.stdout).toContain("lease: inactive");
    const out = jsonOutput(await torii(tree, "target", "show", "kube", "dev", "--json"));
    expect(out).toEqual({
      tool: "kube",
      provider: "kube",
      target: "dev",
      file: path.join(tree.kubeDir, "targets", "dev", "target.yaml"),
      config: { version: "1", name: "dev", context: "dev-ctx", identity: { provider: "idp", scope: "dev" } },
      rules: path.join(tree.kubeDir, "targets", "dev", "rules.yaml"),
      lease: { active: false, expires_at: null, remaining_minutes: null, stale: false },
    });
    expectUsageError(await torii(tree, "target", "show", "kube", "nope"), 'kube has no target "nope" (targets: dev, prod)');
  });

  test("status prints the revision and the active leases with their remaining minutes", async () => {
    const tree = makeTree();
    const empty = jsonOutput(await torii(tree, "target", "status", "kube", "--json"));
    expect(empty).toEqual({ tool: "kube", provider: "kube", file: tree.leaseFile, revision: 0, leases: [] });
    expect((await torii(tree, "target", "status", "kube")).stdout).toContain("no active lease");
    await torii(tree, "target", "activate", "kube", "dev", "--for", "10");
    const out = jsonOutput(await torii(tree, "target", "status", "kube", "--json"));
    expect(out.revision).toBeGreaterThan(0);
    expect(out.leases).toEqual([{ target: "dev", expires_at: ANY_STRING, remaining_minutes: 10, configured: true, current: true }]);
    expect((await torii(tree, "target", "status", "kube")).stdout).toMatch(/dev {2}until \S+ \(10 min left\)/u);
  });

  test("an edited target.yaml makes its lease stale", async () => {
    const tree = makeTree();
    await torii(tree, "target", "activate", "kube", "dev");
    writeFileSync(path.join(tree.kubeDir, "targets", "dev", "target.yaml"), DEV_TARGET.replace("dev-ctx", "prod-ctx"));
    const list = jsonOutput(await torii(tree, "target", "list", "kube", "--json"));
    expect(list.targets).toContainEqual({ name: "dev", active: false, expires_at: null, remaining_minutes: null, stale: true });
    const status = jsonOutput(await torii(tree, "target", "status", "kube", "--json"));
    expect(status.leases).toEqual([expect.objectContaining({ target: "dev", configured: true, current: false })]);
  });

  test("an invalid lease file: status, list and show exit 1 naming the file and its kind, and leave it byte-identical", async () => {
    const tree = makeTree();
    const garbage =
      'version: "1"\nrevision: 3\nauthorizations:\n  - {target: dev, binding: x, expires_at: "2999-01-01T00:00:00Z"}\n  - {target: dev, binding: x, expires_at: "2999-01-01T00:00:00Z"}\n';
    writeFileSync(tree.leaseFile, garbage, { mode: 0o600 });
    const status = await torii(tree, "target", "status", "kube");
    expect(status.status).toBe(1);
    expect(status.stdout).toContain(tree.leaseFile);
    expect(status.stdout).toMatch(/is unusable \(\w[\w-]*\)/u);
    const out = await runCli(["target", "status", "kube", "--json"], tree.env);
    expect(out.status).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ file: tree.leaseFile, error: { file: tree.leaseFile, kind: ANY_STRING } });
    const list = await torii(tree, "target", "list", "kube");
    expect(list.status).toBe(1);
    expect(list.stdout).toMatch(/dev +inactive/u);
    expect((await torii(tree, "target", "show", "kube", "dev")).status).toBe(1);
    // Activating refuses to write over it.
    expectUsageError(await torii(tree, "target", "activate", "kube", "dev"), "torii target clear kube");
    expect(readFileSync(tree.leaseFile, "utf8")).toBe(garbage);
  });

  test("a provider without targets and an unknown tool are usage errors", async () => {
    const tree = makeTree();
    expectUsageError(await torii(tree, "target", "list", "idp"), "idp takes no target");
    expectUsageError(await torii(tree, "target", "status", "nope"), 'unknown provider tool "nope"');
  });
});

describe("torii target activate", () => {
  test("defaults to default_target_minutes from settings.yaml", async () => {
    const tree = makeTree({ "settings.yaml": 'version: "1"\ndefault_target_minutes: 7\n' });
    const before = Date.now();
    const out = jsonOutput(await torii(tree, "target", "activate", "kube", "dev", "--json"));
    const after = Date.now();
    expect(out).toMatchObject({ action: "target-activated", tool: "kube", target: "dev", mode: "replace", minutes: 7, replaced: [], active: ["dev"] });
    expect(expiresBetween(out.expires_at, before, after)).toBe(7);
    expect(mode(tree.leaseFile)).toBe(0o600);
  });

  test("replaces every other active lease unless --add", async () => {
    const tree = makeTree();
    await torii(tree, "target", "activate", "kube", "dev");
    const replace = await torii(tree, "target", "activate", "kube", "prod");
    expect(replace.status).toBe(0);
    expect(replace.stdout).toContain("replaced: dev");
    expect(jsonOutput(await torii(tree, "target", "status", "kube", "--json")).leases).toEqual([expect.objectContaining({ target: "prod" })]);

    const add = await torii(tree, "target", "activate", "kube", "dev", "--add", "--for", "5");
    expect(add.status).toBe(0);
    expect(add.stdout).toContain("still active: prod");
    expect(add.stdout).toContain("warning: 2 targets of kube are active at once");
    const both = jsonOutput(await torii(tree, "target", "list", "kube", "--json")).targets as { name: string; active: boolean }[];
    expect(both.map((target) => [target.name, target.active])).toEqual([
      ["dev", true],
      ["prod", true],
    ]);

    const again = jsonOutput(await torii(tree, "target", "activate", "kube", "prod", "--json"));
    expect(again).toMatchObject({ mode: "replace", replaced: ["dev"], active: ["prod"] });
  });

  test.each([["0"], ["1441"], ["abc"], ["-5"], ["1.5"]])("refuses --for %s", async (minutes) => {
    const tree = makeTree();
    const result = await torii(tree, "target", "activate", "kube", "dev", "--for", minutes);
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/^torii: /u);
    expect(existsSync(tree.leaseFile)).toBe(false);
  });

  test("--for 1440 is the longest lease", async () => {
    const tree = makeTree();
    const before = Date.now();
    const out = jsonOutput(await torii(tree, "target", "activate", "kube", "dev", "--for", "1440", "--json"));
    expect(expiresBetween(out.expires_at, before, Date.now())).toBe(1440);
  });

  test("an unknown alias is refused", async () => {
    const tree = makeTree();
    expectUsageError(await torii(tree, "target", "activate", "kube", "staging"), 'kube has no target "staging" (targets: dev, prod)');
    expect(existsSync(tree.leaseFile)).toBe(false);
  });

  test("reads only the provider and its targets' identity providers: an unrelated broken provider.yaml stops list, not activate", async () => {
    const tree = makeTree({ "providers/vault/provider.yaml": 'version: "1"\nname: vault\ntool: [unclosed\n' });
    const list = await runCli(["target", "list", "kube"], tree.env);
    expect(list.status).toBe(3);
    expect(list.stderr).toContain(path.join(tree.root, "providers", "vault", "provider.yaml"));
    const out = jsonOutput(await torii(tree, "target", "activate", "kube", "dev", "--json"));
    expect(out).toMatchObject({ action: "target-activated", target: "dev", active: ["dev"] });
  });

  test("still refuses a target whose identity provider is broken, naming the file", async () => {
    const tree = makeTree({ "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: [unclosed\n' });
    const result = await runCli(["target", "activate", "kube", "dev"], tree.env);
    expect(result.status).toBe(3);
    expect(result.stderr).toContain(path.join(tree.root, "providers", "idp", "provider.yaml"));
    expect(existsSync(tree.leaseFile)).toBe(false);
  });
});

describe("torii target clear", () => {
  test("revokes every lease and keeps the targets", async () => {
    const tree = makeTree();
    await torii(tree, "target", "activate", "kube", "dev");
    await torii(tree, "target", "activate", "kube", "prod", "--add");
    const out = jsonOutput(await torii(tree, "target", "clear", "kube", "--json"));
    expect(out).toMatchObject({ action: "target-leases-cleared", tool: "kube", preserved_invalid: null });
    expect([...(out.cleared as string[])].sort()).toEqual(["dev", "prod"]);
    expect(jsonOutput(await torii(tree, "target", "status", "kube", "--json")).leases).toEqual([]);
    expect(existsSync(path.join(tree.kubeDir, "targets", "dev", "target.yaml"))).toBe(true);
    expect(existsSync(path.join(tree.kubeDir, "targets", "prod", "target.yaml"))).toBe(true);
    expect((await torii(tree, "target", "clear", "kube")).stdout).toContain("no lease of kube was active");
  });

  test("recovers an invalid lease file and keeps a byte-identical copy", async () => {
    const tree = makeTree();
    const garbage = "authorizations: [\n";
    writeFileSync(tree.leaseFile, garbage, { mode: 0o600 });
    const result = await torii(tree, "target", "clear", "kube");
    expect(result.status).toBe(0);
    const kept = /a copy is kept at (\S+)/u.exec(result.stdout)?.[1];
    expect(kept).toBeDefined();
    expect(readFileSync(kept ?? "", "utf8")).toBe(garbage);
    expect((await torii(tree, "target", "status", "kube")).status).toBe(0);
    expect((await torii(tree, "target", "activate", "kube", "dev")).status).toBe(0);
  });
});

describe("torii target remove", () => {
  test("refuses without --force and deletes nothing", async () => {
    const tree = makeTree();
    await torii(tree, "target", "activate", "kube", "dev");
    expectUsageError(await torii(tree, "target", "remove", "kube", "dev"), "without --force");
    expect(existsSync(path.join(tree.kubeDir, "targets", "dev", "target.yaml"))).toBe(true);
    expect(jsonOutput(await torii(tree, "target", "status", "kube", "--json")).leases).toHaveLength(1);
  });

  test("revokes the lease, then deletes the target directory", async () => {
    const tree = makeTree({ "providers/kube/targets/dev/rules.yaml": RULES, "providers/kube/targets/dev/.env": `TOKEN=${KUBE_SECRET}\n` });
    await torii(tree, "target", "activate", "kube", "dev");
    await torii(tree, "target", "activate", "kube", "prod", "--add");
    const out = jsonOutput(await torii(tree, "target", "remove", "kube", "dev", "--force", "--json"));
    expect(out).toEqual({
      action: "target-removed",
      tool: "kube",
      provider: "kube",
      target: "dev",
      lease_revoked: true,
      removed: path.join(tree.kubeDir, "targets", "dev"),
      restart_required: true,
    });
    expect(existsSync(path.join(tree.kubeDir, "targets", "dev"))).toBe(false);
    expect(jsonOutput(await torii(tree, "target", "status", "kube", "--json")).leases).toEqual([expect.objectContaining({ target: "prod" })]);
    expect(jsonOutput(await torii(tree, "target", "list", "kube", "--json")).targets).toEqual([expect.objectContaining({ name: "prod", active: true })]);
    const text = await torii(tree, "target", "remove", "kube", "prod", "--force");
    expect(text.stdout).toContain("revoked the lease of kube target prod");
    expect(text.stdout).toContain("restart the MCP server");
  });

  test("with an invalid lease file it deletes nothing and points at clear", async () => {
    const tree = makeTree();
    writeFileSync(tree.leaseFile, "not: [valid\n", { mode: 0o600 });
    expectUsageError(await torii(tree, "target", "remove", "kube", "dev", "--force"), "torii target clear kube");
    expect(existsSync(path.join(tree.kubeDir, "targets", "dev", "target.yaml"))).toBe(true);
    expect(readFileSync(tree.leaseFile, "utf8")).toBe("not: [valid\n");
  });
});

interface AuditLine {
  readonly call_id: string;
  readonly scope: string;
  readonly event: string;
  readonly detail?: string;
  readonly argv_head?: string[];
}

function auditRecords(tree: Tree): AuditLine[] {
  const text = readFileSync(path.join(tree.root, "audit.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditLine);
}

describe("the audit log", () => {
  test("target add, activate, clear and remove each leave their records, scoped tool or tool/alias, and the chain verifies", async () => {
    const tree = makeTree();
    const garbage = "authorizations: [ SECRET-LEASE-BYTES\n";
    await torii(tree, "target", "add", "kube", "staging", "--context", "prod-ctx", "--provider", "idp");
    await torii(tree, "target", "activate", "kube", "dev", "--for", "15");
    await torii(tree, "target", "activate", "kube", "prod", "--add", "--for", "5");
    await torii(tree, "target", "activate", "kube", "staging");
    await torii(tree, "target", "clear", "kube");
    writeFileSync(tree.leaseFile, garbage, { mode: 0o600 });
    await torii(tree, "target", "clear", "kube");
    await torii(tree, "target", "activate", "kube", "dev");
    await torii(tree, "target", "remove", "kube", "dev", "--force");
    await torii(tree, "target", "remove", "kube", "prod", "--force");

    const records = auditRecords(tree);
    expect(records.map(({ event, scope, detail }) => ({ event, scope, detail }))).toEqual([
      { event: "target-added", scope: "kube/staging", detail: "kubectl_context" },
      { event: "target-access-replaced", scope: "kube/dev", detail: "15min; replaced: none" },
      { event: "target-access-added", scope: "kube/prod", detail: "5min" },
      { event: "target-access-replaced", scope: "kube/staging", detail: expect.stringMatching(/^\d+min; replaced: (dev, prod|prod, dev)$/u) as string },
      { event: "target-access-cleared", scope: "kube", detail: "cleared 1 lease(s)" },
      { event: "target-access-cleared", scope: "kube", detail: "cleared 0 lease(s); preserved invalid file" },
      { event: "target-access-replaced", scope: "kube/dev", detail: expect.stringMatching(/min; replaced: none$/u) as string },
      { event: "target-access-revoked", scope: "kube/dev", detail: "target remove" },
      { event: "target-removed", scope: "kube/dev", detail: undefined },
      { event: "target-removed", scope: "kube/prod", detail: undefined },
    ]);
    // One call id per invocation, shared by its records; a fresh one for every invocation.
    expect(records[7]?.call_id).toBe(records[8]?.call_id);
    expect(new Set(records.map((record) => record.call_id)).size).toBe(records.length - 1);
    expect(records.every((record) => /^[0-9a-f-]{36}$/u.test(record.call_id))).toBe(true);
    expect(readFileSync(path.join(tree.root, "audit.jsonl"), "utf8")).not.toContain("SECRET-LEASE-BYTES");
    const verify = await torii(tree, "audit", "verify");
    expect(verify.status).toBe(0);
  });
});

describe("usage errors from the command line parser", () => {
  test("an unknown option or a missing argument exits 3 with a torii: message", async () => {
    const tree = makeTree();
    expectUsageError(await torii(tree, "target", "activate", "kube", "dev", "--forever"), "unknown option '--forever'");
    expectUsageError(await torii(tree, "target", "show", "kube"), "missing required argument 'name'");
  });
});
