/**
 * The bundled provider packages, loaded by the real registry, with their
 * read-only presets as the rules: every sample call in
 * scripts/providers/preset-cases.json decides as expected, and `torii policy
 * check` refuses the override spellings of threats.md §1.3 (and others of the
 * same classes) under the real option tables.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { loadRegistry } from "../../src/config/registry.js";
import { parseRulesFile } from "../../src/config/rules-file.js";
import { PolicyCache } from "../../src/pipeline/policy-cache.js";
import { explainWith } from "../../src/policy/explain.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const PROVIDERS = ["kubectl", "aws", "az", "gcloud"] as const;
type Expected = "accept" | "unresolved" | "deny" | `deny:${string}`;
const cases = JSON.parse(readFileSync(path.join(repo, "scripts/providers/preset-cases.json"), "utf8")) as Record<string, [string[], Expected][]>;

let root: string;

beforeAll(() => {
  root = tempDirectory("torii-bundled-");
  for (const name of PROVIDERS) {
    // As `torii provider install` lays them out: the generated JSON beside the YAML is what loads (the
    // YAML-only fallback, parsing the whole option table, is test/unit/config/provider-json.test.ts's).
    for (const file of ["provider.yaml", "provider.generated.json"]) cpSync(path.join(repo, "providers", name, file), path.join(root, "providers", name, file));
    cpSync(path.join(repo, "providers", name, "presets", "readonly.yaml"), path.join(root, "providers", name, "rules.yaml"));
  }
});

describe("bundled providers load and their presets decide as documented", () => {
  test("the registry loads all four bundled providers", () => {
    const registry = loadRegistry(root);
    expect([...registry.providers.keys()].sort()).toEqual(["aws", "az", "gcloud", "kubectl"]);
  });

  test("each package ships empty base rules (an installed provider starts at default deny) and an ASCII provider.yaml", () => {
    for (const name of PROVIDERS) {
      const rules = path.join(repo, "providers", name, "rules.yaml");
      expect(parseRulesFile(rules, readFileSync(rules, "utf8")), rules).toEqual({ deny: [], accept: [] });
      // Tab, newline and carriage return are the only control characters; nothing outside ASCII can hide a look-alike.
      // eslint-disable-next-line no-control-regex
      expect(readFileSync(path.join(repo, "providers", name, "provider.yaml"), "utf8"), name).toMatch(/^[\x09\x0a\x0d\x20-\x7e]*$/);
    }
  });

  for (const name of PROVIDERS) {
    test(`${name}: ${String(cases[name]?.length ?? 0)} sample calls`, () => {
      const entry = loadRegistry(root).providers.get(name);
      if (entry === undefined) throw new Error(`${name} not loaded`);
      const { policy } = new PolicyCache().load(entry);
      const samples = cases[name] ?? [];
      expect(samples.length).toBeGreaterThan(10);
      for (const [argv, expected] of samples) {
        const result = explainWith(policy, argv);
        const [decision, source] = expected.split(":");
        expect(result.decision, `${name} ${JSON.stringify(argv)}: ${result.reason}`).toBe(decision);
        if (source !== undefined) expect(result.source, `${name} ${JSON.stringify(argv)}`).toBe(source);
      }
    });
  }
});

describe("torii policy check refuses override spellings on the bundled providers", () => {
  const spellings: [string, string[]][] = [
    // threats.md §1.3, kubectl
    ["kubectl", ["get", "pods", "--context=prod"]],
    ["kubectl", ["get", "pods", "--context", "prod"]],
    ["kubectl", ["--kubeconfig=/tmp/k", "get", "pods"]],
    ["kubectl", ["get", "pods", "-s", "https://evil"]],
    ["kubectl", ["get", "pods", "-shttps://evil"]],
    ["kubectl", ["get", "pods", "--server=https://evil", "--insecure-skip-tls-verify"]],
    ["kubectl", ["get", "pods", "--as=system:admin"]],
    ["kubectl", ["get", "pods", "--as-group=system:masters"]],
    ["kubectl", ["get", "pods", "--token", "abc"]],
    // the same classes, spellings not listed there
    ["kubectl", ["get", "pods", "-As", "https://evil"]],
    ["kubectl", ["get", "pods", "-s=https://evil"]],
    ["kubectl", ["get", "pods", "--insecure_skip_tls_verify=true"]],
    ["kubectl", ["get", "pods", "--client_key=/tmp/k"]],
    ["kubectl", ["get", "pods", "--tls_server_name", "x"]],
    ["kubectl", ["get", "pods", "--namespace", "--server=https://evil"]],
    // verbose client logs carry response bodies (secret data) to stderr
    ["kubectl", ["describe", "secret", "db", "--v=9"]],
    ["kubectl", ["describe", "secret", "db", "-v9"]],
    // a -- does not hide a denied resource
    ["kubectl", ["get", "-o", "yaml", "--", "secrets"]],
    // aws
    ["aws", ["s3", "ls", "--profile", "prod"]],
    ["aws", ["--profile=prod", "s3", "ls"]],
    ["aws", ["s3", "ls", "--prof", "prod"]],
    ["aws", ["s3", "ls", "--endpoint-url", "https://evil"]],
    ["aws", ["s3", "ls", "--endpoint=https://evil"]],
    ["aws", ["s3", "ls", "--no-verify-ssl"]],
    ["aws", ["s3", "ls", "--no-verify"]],
    ["aws", ["s3", "ls", "--ca-bundle", "/tmp/ca.pem"]],
    ["aws", ["s3", "ls", "--ca=/tmp/ca.pem"]],
    ["aws", ["s3", "ls", "--reg", "eu-west-1"]],
    ["aws", ["iam", "create-policy", "--policy-document", "fileb://~/.aws/credentials"]],
    ["aws", ["ec2", "describe-instances", "--cli-input-json", "file:///etc/passwd"]],
    ["aws", ["ec2", "describe-instances", "--cli-input-json", "FILE:///etc/passwd"]],
    ["aws", ["s3api", "put-bucket-tagging", "--tagging", "TagSet=[{Key=k,Value=x}]", "--tags", "K@=file://x"]],
    ["aws", ["s3", "ls", "--debug"]],
    ["aws", ["s3", "ls", "--deb"]],
    ["aws", ["emr", "create-default-roles", "--iam-endpoint", "http://127.0.0.1:18999"]],
    ["aws", ["emr", "create-default-roles", "--iam-end=http://127.0.0.1:18999"]],
    ["aws", ["dlm", "create-default-role", "--iam-endpoint", "http://127.0.0.1:18999"]],
    ["aws", ["emr-containers", "update-role-trust-policy", "--iam-endpoint", "http://127.0.0.1:18999"]],
    ["aws", ["s3", "cp", "s3://a/k", "s3://b/k", "--source-region", "eu-west-1"]],
    ["aws", ["s3", "sync", "s3://a", "s3://b", "--source-reg=eu-west-1"]],
    ["aws", ["configure", "set", "endpoint_url", "http://127.0.0.1:18999"]],
    ["aws", ["configure", "import", "--csv", "x"]],
    ["aws", ["eks", "update-kubeconfig", "--name", "c"]],
    // az
    ["az", ["vm", "list", "--subscription", "x"]],
    ["az", ["vm", "list", "--sub", "x"]],
    ["az", ["vm", "list", "--s", "x"]],
    ["az", ["deployment", "group", "create", "--parameters", "@~/.azure/x"]],
    ["az", ["vm", "list", "--debug"]],
    ["az", ["vm", "show", "--ids", "/subscriptions/OTHER/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/v"]],
    ["az", ["role", "assignment", "create", "--assignee", "a", "--role", "Owner", "--scope", "/subscriptions/OTHER"]],
    ["aws", ["sts", "assume-role", "--role-arn", "arn:aws:iam::111111111111:role/x", "--role-session-name", "s"]],
    // gcloud
    ["gcloud", ["compute", "instances", "list", "--account=other@x"]],
    ["gcloud", ["compute", "instances", "list", "--impersonate-service-account=sa@x"]],
    ["gcloud", ["compute", "instances", "list", "--flags-file=x.yaml"]],
    ["gcloud", ["compute", "instances", "list", "--project", "other"]],
    ["gcloud", ["compute", "instances", "list", "--log-http"]],
    ["gcloud", ["secrets", "versions", "access", "projects/other/secrets/s/versions/latest"]],
  ];

  test.each(spellings)("%s %j is denied", async (tool, argv) => {
    const result = await runCli(["policy", "check", tool, "--", ...argv], { TORII_CONFIG_DIR: root });
    expect(result.status, result.stderr).toBe(1);
    const explanation = JSON.parse(result.stdout) as { decision: string; source: string };
    expect(explanation.decision).toBe("deny");
    expect(["locked-option", "locked-command", "forbidden-value", "forbidden-arg", "argv-rejected", "explicit-deny"]).toContain(explanation.source);
  });
});

describe("torii policy check: an operator's literal deny covers what the CLI reads as the same request", () => {
  let operatorRoot: string;
  const RULES: Record<string, string> = {
    aws: 'version: "1"\ndeny: ["ec2 run-instances --user-data"]\naccept: [ec2]\n',
    kubectl: 'version: "1"\ndeny: ["get secrets"]\naccept: [get]\n',
  };

  beforeAll(() => {
    operatorRoot = tempDirectory("torii-spelling-");
    for (const [name, rules] of Object.entries(RULES)) {
      for (const file of ["provider.yaml", "provider.generated.json"])
        cpSync(path.join(repo, "providers", name, file), path.join(operatorRoot, "providers", name, file));
      // The operator's own literal rules, not the preset's regex.
      writeFileSync(path.join(operatorRoot, "providers", name, "rules.yaml"), rules);
    }
  });

  const userData = '{"UserData":"eA==","ImageId":"ami-1"}';
  test.each([
    ["aws", ["ec2", "run-instances", "--cli-input-json", userData]],
    ["aws", ["ec2", "run-instances", "--cli-input-js", userData]],
    ["kubectl", ["get", "secret"]],
    ["kubectl", ["get", "SECRETS"]],
    ["kubectl", ["get", "pods,secrets"]],
    ["kubectl", ["get", "secret/x", "-o", "yaml"]],
  ])("%s %j is denied by the operator's rule", async (tool, argv) => {
    const result = await runCli(["policy", "check", tool, "--", ...argv], { TORII_CONFIG_DIR: operatorRoot });
    expect(result.status, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      decision: "deny",
      source: "explicit-deny",
      rule: { text: tool === "aws" ? "ec2 run-instances --user-data" : "get secrets" },
    });
  });
});

describe("torii policy check: a kubectl deny that names an object covers calls that reach it without its name", () => {
  let operatorRoot: string;

  beforeAll(() => {
    operatorRoot = tempDirectory("torii-objects-");
    for (const file of ["provider.yaml", "provider.generated.json"])
      cpSync(path.join(repo, "providers", "kubectl", file), path.join(operatorRoot, "providers", "kubectl", file));
    // Per-object denies under verb-wide accepts (red-team F7).
    writeFileSync(
      path.join(operatorRoot, "providers", "kubectl", "rules.yaml"),
      'version: "1"\ndeny: ["delete secrets prod-db", "exec db-0"]\naccept: [delete, exec]\n',
    );
  });

  test.each([
    [["delete", "secrets", "--field-selector=metadata.name=prod-db"], "delete secrets prod-db"],
    [["delete", "secrets", "-l", "app=db"], "delete secrets prod-db"],
    [["delete", "secrets", "--all", "-A"], "delete secrets prod-db"],
    [["delete", "-f", "secrets.yaml"], "delete secrets prod-db"],
    [["exec", "sts/db", "--", "env"], "exec db-0"],
  ])("kubectl %j is denied by %s", async (argv, rule) => {
    const result = await runCli(["policy", "check", "kubectl", "--", ...argv], { TORII_CONFIG_DIR: operatorRoot });
    expect(result.status, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: "deny", source: "explicit-deny", rule: { text: rule } });
  });

  test("a call naming another object is accepted", async () => {
    const result = await runCli(["policy", "check", "kubectl", "--", "delete", "secrets", "other"], { TORII_CONFIG_DIR: operatorRoot });
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: "accept" });
  });
});
