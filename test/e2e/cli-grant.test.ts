/**
 * `torii grant …` through the built binary, against throw-away configuration
 * trees; and, with the MCP server, that what the CLI writes (grants and leases)
 * is what the server honours.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { afterEach, describe, expect, test } from "vitest";
import { grantFingerprint } from "../../src/state/fingerprints.js";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { expectUsageError, expiresBetween, jsonOutput, runChecked } from "../support/cli-expect.js";
import { runCli, type CliResult } from "../support/run-cli.js";

const DEMO = `version: "1"
name: demo
tool: demo
command: recorder
argv:
  parser: plain
`;

const IDP = `version: "1"
name: idp
tool: idp
command: echo
`;

const KUBE = `version: "1"
name: kube
tool: kube
command: recorder
targeting:
  mode: kubectl_context
  locked_options: [--kuberc]
argv:
  parser: pflag
  forbidden_value_prefixes: ["file://"]
  options:
    - {name: --namespace, short: -n, value: required}
    - {name: --context, value: required}
    - {name: --server, short: -s, value: required}
  commands:
    - path: [get]
      options:
        - {name: --output, short: -o, value: required}
`;

const RULES = 'version: "1"\ndeny: [push]\naccept: [status]\n';

interface Tree {
  readonly root: string;
  readonly env: Record<string, string>;
  readonly demoGrants: string;
  readonly devGrants: string;
  readonly prodGrants: string;
}

function makeTree(extra: Record<string, string> = {}): Tree {
  const root = makeConfigTree({
    "providers/demo/provider.yaml": DEMO,
    "providers/demo/rules.yaml": RULES,
    "providers/idp/provider.yaml": IDP,
    "providers/idp/rules.yaml": RULES,
    "providers/kube/provider.yaml": KUBE,
    "providers/kube/rules.yaml": 'version: "1"\ndeny: [delete]\naccept: []\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: idp}\n',
    "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: idp}\n',
    ...extra,
  });
  const kube = path.join(root, "providers", "kube");
  return {
    root,
    env: { TORII_CONFIG_DIR: root },
    demoGrants: path.join(root, "providers", "demo", "grants"),
    devGrants: path.join(kube, "targets", "dev", "grants"),
    prodGrants: path.join(kube, "targets", "prod", "grants"),
  };
}

function torii(tree: Tree, ...args: string[]): Promise<CliResult> {
  return runChecked(args, tree.env);
}

interface StoredGrants {
  version: string;
  entries: { expires_at: string; matcher: { mode: string; token_count: number; sha256: string } }[];
}

function storedGrants(file: string): StoredGrants {
  return parse(readFileSync(file, "utf8")) as StoredGrants;
}

const EVIDENCE = /^grant:(exact|prefix):\d+:[0-9a-f]{8}$/u;

describe("torii grant add", () => {
  test("--exact grants the whole canonical argv for default_grant_minutes, in the provider's grants file", async () => {
    const tree = makeTree({ "settings.yaml": 'version: "1"\ndefault_grant_minutes: 4\n' });
    const before = Date.now();
    const out = jsonOutput(await torii(tree, "grant", "add", "demo", "--exact", "--json", "--", "fetch", "origin", "--prune"));
    const after = Date.now();
    expect(out).toMatchObject({
      action: "grant-added",
      tool: "demo",
      target: null,
      file: tree.demoGrants,
      mode: "exact",
      tokens: ["fetch", "origin", "--prune"],
      token_count: 3,
      minutes: 4,
    });
    expect(out.evidence).toMatch(EVIDENCE);
    expect(expiresBetween(out.expires_at, before, after)).toBe(4);
    expect(statSync(tree.demoGrants).mode & 0o777).toBe(0o600);
    const stored = storedGrants(tree.demoGrants);
    expect(stored.version).toBe("2");
    expect(stored.entries).toEqual([
      { expires_at: out.expires_at, matcher: { mode: "exact", token_count: 3, sha256: grantFingerprint("exact", ["fetch", "origin", "--prune"]) } },
    ]);
  });

  test("canonicalises with the provider's grammar, as the server does; --prefix N keeps the first N canonical tokens", async () => {
    const tree = makeTree();
    const exact = jsonOutput(
      await torii(tree, "grant", "add", "kube", "dev", "--exact", "--for", "30", "--json", "--", "get", "-nkube-system", "pods", "-o", "json"),
    );
    expect(exact).toMatchObject({ tool: "kube", target: "dev", file: tree.devGrants, minutes: 30 });
    expect(exact.tokens).toEqual(["get", "pods", "--namespace=kube-system", "--output=json"]);
    const prefix = jsonOutput(await torii(tree, "grant", "add", "kube", "dev", "--prefix", "2", "--json", "--", "get", "pods", "--namespace", "web"));
    expect(prefix).toMatchObject({ mode: "prefix", tokens: ["get", "pods"], token_count: 2 });
    expect(prefix.evidence).toMatch(/^grant:prefix:2:[0-9a-f]{8}$/u);
    expect(storedGrants(tree.devGrants).entries.map((entry) => entry.matcher.sha256)).toEqual([
      grantFingerprint("exact", ["get", "pods", "--namespace=kube-system", "--output=json"]),
      grantFingerprint("prefix", ["get", "pods"]),
    ]);
    expect(existsSync(tree.prodGrants)).toBe(false);
  });

  test("the human-readable output names the tokens, the evidence and the expiry", async () => {
    const tree = makeTree();
    const result = await torii(tree, "grant", "add", "demo", "--prefix", "1", "--for", "3", "--", "fetch", "origin");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^granted demo \(prefix, 1 canonical token\(s\)\) for 3 min, until \S+Z \(3 min left\)\n/u);
    expect(result.stdout).toContain('tokens: "fetch" …');
    expect(result.stdout).toMatch(/evidence: grant:prefix:1:[0-9a-f]{8}/u);
    expect(result.stdout).toContain(`file: ${tree.demoGrants}`);
  });

  test("a locked option, a forbidden value or an unreadable argv is refused and nothing is written", async () => {
    const tree = makeTree();
    for (const args of [
      ["get", "pods", "--context=prod-ctx"],
      ["get", "pods", "-shttps://evil"],
      ["--kuberc=/tmp/x", "get"],
    ]) {
      expectUsageError(
        await torii(tree, "grant", "add", "kube", "dev", "--exact", "--", ...args),
        /refused: .*\(locked-option, argument \d\); no grant can allow this argv/u,
      );
    }
    expectUsageError(await torii(tree, "grant", "add", "kube", "dev", "--exact", "--", "get", "pods", "-o", "file:///etc/passwd"), "(forbidden-value");
    expectUsageError(await torii(tree, "grant", "add", "kube", "dev", "--prefix", "1", "--", "get", "--bogus", "pods"), "(argv-rejected");
    expect(existsSync(tree.devGrants)).toBe(false);
  });

  test("exactly one of --exact and --prefix, and a prefix within the canonical argv", async () => {
    const tree = makeTree();
    expectUsageError(await torii(tree, "grant", "add", "demo", "--exact", "--prefix", "1", "--", "fetch"), "exactly one of --exact and --prefix");
    expectUsageError(await torii(tree, "grant", "add", "demo", "--", "fetch"), "exactly one of --exact and --prefix");
    expectUsageError(
      await torii(tree, "grant", "add", "demo", "--prefix", "3", "--", "fetch", "origin"),
      '--prefix must be a whole number from 1 to 2, got "3"',
    );
    expectUsageError(await torii(tree, "grant", "add", "demo", "--prefix", "0", "--", "fetch", "origin"), "--prefix must be a whole number from 1 to 2");
    expectUsageError(await torii(tree, "grant", "add", "demo", "--exact"), "the arguments go after --");
    expectUsageError(await torii(tree, "grant", "add", "demo", "--exact", "--"), "the arguments go after --");
    expect(existsSync(tree.demoGrants)).toBe(false);
  });

  test.each([["0"], ["1441"], ["abc"]])("refuses --for %s", async (minutes) => {
    const tree = makeTree();
    expectUsageError(await torii(tree, "grant", "add", "demo", "--exact", "--for", minutes, "--", "fetch"), "--for must be a whole number from 1 to 1440");
    expect(existsSync(tree.demoGrants)).toBe(false);
  });

  test("the scope must exist: a target for a target-aware provider, none for a simple one", async () => {
    const tree = makeTree();
    expectUsageError(
      await torii(tree, "grant", "add", "kube", "--exact", "--", "get", "pods"),
      "every call to kube names a target, so its grants are per target",
    );
    expectUsageError(await torii(tree, "grant", "add", "kube", "staging", "--exact", "--", "get", "pods"), 'kube has no target "staging" (targets: dev, prod)');
    expectUsageError(await torii(tree, "grant", "add", "demo", "dev", "--exact", "--", "fetch"), "demo takes no target");
    expectUsageError(await torii(tree, "grant", "add", "nope", "--exact", "--", "fetch"), 'unknown provider tool "nope"');
  });
});

describe("torii grant list, revoke and clear", () => {
  test("list shows live grants per scope; revoke removes one by its evidence", async () => {
    const tree = makeTree();
    const first = jsonOutput(await torii(tree, "grant", "add", "kube", "dev", "--exact", "--json", "--", "get", "pods"));
    const second = jsonOutput(await torii(tree, "grant", "add", "kube", "dev", "--prefix", "1", "--for", "60", "--json", "--", "get", "nodes"));
    jsonOutput(await torii(tree, "grant", "add", "kube", "prod", "--exact", "--json", "--", "get", "svc"));

    const listed = jsonOutput(await torii(tree, "grant", "list", "kube", "dev", "--json"));
    expect(listed).toMatchObject({ tool: "kube", target: "dev", file: tree.devGrants });
    expect(listed.grants).toEqual([
      { evidence: first.evidence, mode: "exact", token_count: 2, expires_at: first.expires_at, remaining_minutes: 2 },
      { evidence: second.evidence, mode: "prefix", token_count: 1, expires_at: second.expires_at, remaining_minutes: 60 },
    ]);
    const text = await torii(tree, "grant", "list", "kube", "dev");
    expect(text.stdout).toContain(`${String(first.evidence)}  exact, 2 token(s)  until`);
    expect((jsonOutput(await torii(tree, "grant", "list", "kube", "prod", "--json")).grants as unknown[]).length).toBe(1);

    const revoked = jsonOutput(await torii(tree, "grant", "revoke", "kube", "dev", String(first.evidence), "--json"));
    expect(revoked).toEqual({
      action: "grant-revoked",
      tool: "kube",
      target: "dev",
      file: tree.devGrants,
      evidence: first.evidence,
      removed: 1,
      superseded: [],
    });
    expect(jsonOutput(await torii(tree, "grant", "list", "kube", "dev", "--json")).grants).toEqual([
      expect.objectContaining({ evidence: second.evidence }) as unknown,
    ]);
    expectUsageError(await torii(tree, "grant", "revoke", "kube", "dev", String(first.evidence)), `kube dev has no grant ${String(first.evidence)}`);
    expectUsageError(await torii(tree, "grant", "revoke", "kube", "dev", "grant:"), "is not a grant's evidence");
    // With one word after the tool, it is the evidence.
    expectUsageError(await torii(tree, "grant", "revoke", "kube", "dev"), '"dev" is not a grant\'s evidence');
    expectUsageError(await torii(tree, "grant", "revoke", "kube"), "usage: torii grant revoke");
  });

  test("revoke takes the evidence as the second word for a provider without targets", async () => {
    const tree = makeTree();
    const added = jsonOutput(await torii(tree, "grant", "add", "demo", "--exact", "--json", "--", "fetch"));
    const result = await torii(tree, "grant", "revoke", "demo", String(added.evidence));
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`revoked 1 grant(s) ${String(added.evidence)} of demo\n`);
    expect((await torii(tree, "grant", "list", "demo")).stdout).toContain("no live grant");
  });

  test("clear removes every grant of one scope", async () => {
    const tree = makeTree();
    await torii(tree, "grant", "add", "kube", "dev", "--exact", "--", "get", "pods");
    await torii(tree, "grant", "add", "kube", "dev", "--exact", "--", "get", "svc");
    await torii(tree, "grant", "add", "kube", "prod", "--exact", "--", "get", "svc");
    const out = jsonOutput(await torii(tree, "grant", "clear", "kube", "dev", "--json"));
    expect(out).toEqual({ action: "grants-cleared", tool: "kube", target: "dev", file: tree.devGrants, removed: 2, preserved_invalid: null, superseded: [] });
    expect(jsonOutput(await torii(tree, "grant", "list", "kube", "dev", "--json")).grants).toEqual([]);
    expect((jsonOutput(await torii(tree, "grant", "list", "kube", "prod", "--json")).grants as unknown[]).length).toBe(1);
    expect((await torii(tree, "grant", "clear", "kube", "dev")).stdout).toContain("kube dev had no grant");
  });

  test("an invalid or legacy grants file: list exits 1, add refuses, the file stays byte-identical; clear keeps a copy", async () => {
    const tree = makeTree();
    const legacy = "32503680000\tfetch origin\n";
    writeFileSync(tree.demoGrants, legacy, { mode: 0o600 });
    const list = await torii(tree, "grant", "list", "demo");
    expect(list.status).toBe(1);
    expect(list.stdout).toContain(`${tree.demoGrants} is unusable (legacy)`);
    const listJson = await runCli(["grant", "list", "demo", "--json"], tree.env);
    expect(listJson.status).toBe(1);
    expect(JSON.parse(listJson.stdout)).toMatchObject({ tool: "demo", error: { file: tree.demoGrants, kind: "legacy" } });
    expectUsageError(await torii(tree, "grant", "add", "demo", "--exact", "--", "fetch"), "torii grant clear demo");
    expect(readFileSync(tree.demoGrants, "utf8")).toBe(legacy);

    const cleared = jsonOutput(await torii(tree, "grant", "clear", "demo", "--json"));
    expect(cleared).toMatchObject({ removed: 0, preserved_invalid: expect.stringContaining(tree.demoGrants) as unknown });
    expect(readFileSync(String(cleared.preserved_invalid), "utf8")).toBe(legacy);
    expect((await torii(tree, "grant", "add", "demo", "--exact", "--", "fetch")).status).toBe(0);
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
  return readFileSync(path.join(tree.root, "audit.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AuditLine);
}

describe("the audit log", () => {
  test("grant add, revoke and clear each leave one record with the evidence, at most two argv tokens, and the chain verifies", async () => {
    const tree = makeTree();
    const dev = jsonOutput(
      await torii(tree, "grant", "add", "kube", "dev", "--exact", "--for", "30", "--json", "--", "get", "pods", "-nSECRET-NS", "-o", "json"),
    );
    const demo = jsonOutput(await torii(tree, "grant", "add", "demo", "--prefix", "2", "--json", "--", "fetch", "origin", "--prune"));
    await torii(tree, "grant", "add", "kube", "dev", "--exact", "--", "get", "svc");
    await torii(tree, "grant", "revoke", "demo", String(demo.evidence));
    await torii(tree, "grant", "clear", "kube", "dev");

    const records = auditRecords(tree);
    expect(records.map(({ event, scope, detail, argv_head }) => ({ event, scope, detail, argv_head }))).toEqual([
      { event: "grant-added", scope: "kube/dev", detail: `${String(dev.evidence)}; 30min`, argv_head: ["get", "pods"] },
      { event: "grant-added", scope: "demo", detail: `${String(demo.evidence)}; 2min`, argv_head: ["fetch", "origin"] },
      { event: "grant-added", scope: "kube/dev", detail: expect.stringMatching(/^grant:exact:2:[0-9a-f]{8}; 2min$/u) as string, argv_head: ["get", "svc"] },
      { event: "grant-revoked", scope: "demo", detail: demo.evidence, argv_head: undefined },
      { event: "grants-cleared", scope: "kube/dev", detail: "removed 2 grant(s)", argv_head: undefined },
    ]);
    for (const record of records) expect((record.argv_head ?? []).length).toBeLessThanOrEqual(2);
    expect(readFileSync(path.join(tree.root, "audit.jsonl"), "utf8")).not.toContain("SECRET-NS");
    expect(new Set(records.map((record) => record.call_id)).size).toBe(records.length);
    expect((await torii(tree, "audit", "verify")).status).toBe(0);
  });
});

describe("with the MCP server", () => {
  let session: McpSession | undefined;
  afterEach(async () => {
    await session?.close();
    session = undefined;
  });

  test("a grant and a lease written by the CLI are what the server honours, and revoking them takes effect", async () => {
    const tree = makeTree();
    const bin = makeFakeBin();
    session = await startSession(tree.root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    const call = async (tool: string, args: Record<string, unknown>) => outcomeOf(await session!.call(tool, args));

    // A provider without targets: unresolved → headless deny; a grant allows it; revoking it denies again.
    expect((await call("demo", { args: ["fetch", "origin"] })).decision).toMatchObject({ result: "deny", source: "headless" });
    const grant = jsonOutput(await torii(tree, "grant", "add", "demo", "--exact", "--json", "--", "fetch", "origin"));
    expect((await call("demo", { args: ["fetch", "origin"] })).decision).toMatchObject({ result: "allow", source: "grant" });
    expect((await call("demo", { args: ["fetch", "origin", "--all"] })).decision).toMatchObject({ result: "deny" });
    await torii(tree, "grant", "revoke", "demo", String(grant.evidence));
    expect((await call("demo", { args: ["fetch", "origin"] })).decision).toMatchObject({ result: "deny", source: "headless" });

    // A target: inactive until activated; then the server's own grant suggestion, run as a command, allows the call.
    const request = { target: "dev", args: ["get", "pods", "-n", "web"] };
    expect((await call("kube", request)).decision).toMatchObject({ result: "deny", source: "target-inactive" });
    expect((await torii(tree, "target", "activate", "kube", "dev", "--for", "5")).status).toBe(0);
    const unresolved = await call("kube", request);
    expect(unresolved.decision).toMatchObject({ result: "deny", source: "headless" });
    const suggestion = unresolved.decision.grants?.prefix.command ?? "";
    expect(suggestion).toBe("torii grant add kube dev --prefix 2 -- get pods");
    expect((await torii(tree, ...suggestion.split(" ").slice(1))).status).toBe(0);
    const allowed = await call("kube", request);
    expect(allowed.decision).toMatchObject({ result: "allow", source: "grant" });
    expect((JSON.parse(allowed.execution?.stdout ?? "{}") as { argv: string[] }).argv).toEqual(["--context=dev-ctx", "get", "pods", "--namespace=web"]);
    // A grant of dev does not reach prod, and clearing the leases stops dev.
    await torii(tree, "target", "activate", "kube", "prod", "--add");
    expect((await call("kube", { ...request, target: "prod" })).decision).toMatchObject({ result: "deny", source: "headless" });
    expect((await torii(tree, "target", "clear", "kube")).status).toBe(0);
    expect((await call("kube", request)).decision).toMatchObject({ result: "deny", source: "target-inactive" });
  });
});
