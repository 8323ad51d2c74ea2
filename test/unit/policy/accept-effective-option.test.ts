/**
 * An accept rule that names a command's own option (argparse CLIs: an AWS
 * operation's `--acl private`, `--dry-run`) accepts only a call in which that
 * option keeps the rule's value. argparse stores the last occurrence, and the
 * AWS CLI's `--no-dry-run` resets `--dry-run` (checked with aws-cli 1.45:
 * `ec2 terminate-instances --dry-run --no-dry-run` sends DryRun=false,
 * `s3api put-object-acl --acl private --acl public-read-write` sends
 * x-amz-acl: public-read-write), so such a call is no longer accepted by the
 * rule. A repeatable option accumulates (kubectl's slice flags: `create
 * clusterrolebinding b --clusterrole=view --group=devs
 * --group=system:unauthenticated` binds both groups, checked with kubectl 1.32
 * --dry-run=client), so a rule naming it with a value accepts no call that adds
 * values. Through the bundled providers' grammars and the real engine.
 */
import { describe, expect, it } from "vitest";
import { providerFileSchema } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const aws = bundledPolicyContext("aws");
const az = bundledPolicyContext("az");
const gcloud = bundledPolicyContext("gcloud");
const kubectl = bundledPolicyContext("kubectl");

function decide(ctx: ProviderPolicyContext, accept: string[], argv: readonly string[], deny: string[] = []) {
  return evaluatePolicy(compilePolicy(ctx, { shared: ruleList(deny, accept) }), argv).decision;
}

const terminate = ["ec2", "terminate-instances", "--instance-ids", "i-1"];
const acl = ["s3api", "put-object-acl", "--bucket", "b", "--key", "k"];

describe("aws: an accept rule naming a switch or a value accepts only calls that keep it", () => {
  it.each([
    [[...terminate, "--dry-run", "--no-dry-run"]],
    [[...terminate, "--dry-run", "--no-dry"]],
    [[...terminate, "--no-dry-r", "--dry-run", "--no-dry-run"]],
    [["ec2", "--", "terminate-instances", "--dry-run", "--instance-ids", "i-1", "--", "--no-dry-run"]],
  ])("ec2 terminate-instances --dry-run does not accept %j", (argv) => {
    expect(decide(aws, ["ec2 terminate-instances --dry-run"], argv)).toMatchObject({ result: "unresolved", source: "no-rule" });
  });

  it.each([
    [[...acl, "--acl", "private", "--acl", "public-read-write"]],
    [[...acl, "--acl", "private", "--acl=public-read-write"]],
    [[...acl, "--acl=private", "--acl", "public-read-write"]],
    [[...acl, "--acl", "public-read-write", "--acl", "private"]],
  ])("s3api put-object-acl --acl private does not accept %j", (argv) => {
    expect(decide(aws, ["s3api put-object-acl --acl private"], argv)).toMatchObject({ result: "unresolved", source: "no-rule" });
  });

  it("the call that keeps the rule's option is still accepted, and a rule not naming the option still accepts repeats", () => {
    expect(decide(aws, ["ec2 terminate-instances --dry-run"], [...terminate, "--dry-run"]).result).toBe("accept");
    expect(decide(aws, ["ec2 terminate-instances --dry-run"], ["ec2", "terminate-instances", "--dry-run", "--instance-ids", "i-1", "i-2"]).result).toBe(
      "accept",
    );
    expect(decide(aws, ["s3api put-object-acl --acl private"], [...acl, "--acl=private"]).result).toBe("accept");
    expect(decide(aws, ["s3api put-object-acl"], [...acl, "--acl", "private", "--acl", "x"]).result).toBe("accept");
    // A rule naming the option twice takes two occurrences (an append-style option), not three.
    expect(decide(aws, ["s3 cp --exclude a --exclude b"], ["s3", "cp", "s3://x/", "s3://y/", "--exclude", "a", "--exclude", "b"]).result).toBe("accept");
    expect(
      decide(aws, ["s3 cp --exclude a --exclude b"], ["s3", "cp", "s3://x/", "s3://y/", "--exclude", "a", "--exclude", "b", "--exclude", "c"]).result,
    ).toBe("unresolved");
  });

  it("deny rules still match any occurrence", () => {
    expect(decide(aws, ["ec2"], [...terminate, "--no-dry-run", "--dry-run"], ["ec2 terminate-instances --no-dry-run"]).result).toBe("deny");
  });
});

describe("an option whose whole name is a prefix of another the rule names is itself, not a repeat (argparse takes an exact name first)", () => {
  it.each([
    [aws, "s3 cp a.txt s3://b/k --sse aws:kms --sse-kms-key-id K", ["s3", "cp", "a.txt", "s3://b/k", "--sse", "aws:kms", "--sse-kms-key-id", "K"]],
    [
      aws,
      "s3 cp s3://a/k s3://b/k --metadata-directive REPLACE --metadata k=v",
      ["s3", "cp", "s3://a/k", "s3://b/k", "--metadata", "k=v", "--metadata-directive", "REPLACE"],
    ],
    [az, "vm create -g rg -n vm --nsg n --nsg-rule SSH", ["vm", "create", "-g", "rg", "-n", "vm", "--nsg", "n", "--nsg-rule", "SSH"]],
  ])("%#: the rule accepts the call it spells", (ctx, rule, argv) => {
    expect(decide(ctx, [rule], argv).result).toBe("accept");
  });

  it("a repeat of either is still seen, and an abbreviation still counts for the option it abbreviates", () => {
    const rule = "s3 cp a.txt s3://b/k --sse aws:kms --sse-kms-key-id K";
    const base = ["s3", "cp", "a.txt", "s3://b/k", "--sse", "aws:kms", "--sse-kms-key-id", "K"];
    expect(decide(aws, [rule], [...base, "--sse", "AES256"]).result).toBe("unresolved");
    expect(decide(aws, [rule], [...base, "--sse-kms", "K2"]).result).toBe("unresolved");
  });
});

describe("az and gcloud (argparse: the last value of a repeated option wins)", () => {
  it("az group delete --name a does not accept --name a --name b", () => {
    expect(decide(az, ["group delete --name a"], ["group", "delete", "--name", "a", "--name", "b"]).result).toBe("unresolved");
    expect(decide(az, ["group delete --name a"], ["group", "delete", "--name", "a", "--nam=b"]).result).toBe("unresolved");
    expect(decide(az, ["group delete --name a"], ["group", "delete", "--name", "a", "--yes"]).result).toBe("accept");
  });

  it("gcloud compute instances delete --zone us-a does not accept a second --zone", () => {
    const argv = ["compute", "instances", "delete", "vm", "--zone", "us-a", "--zone=us-b"];
    expect(decide(gcloud, ["compute instances delete --zone us-a"], argv).result).toBe("unresolved");
    expect(decide(gcloud, ["compute instances delete --zone us-a"], argv.slice(0, 6)).result).toBe("accept");
  });
});

describe("az: an option's short alias sets the same argument (policy.option_aliases, scope 3)", () => {
  // azure-cli core: --resource-group/-g, --name/-n, --location/-l; argparse keeps the last one given.
  it.each([
    ["group delete --name dev", ["group", "delete", "--name", "dev", "-n", "prod"]],
    ["group delete --name dev", ["group", "delete", "--name", "dev", "-nprod"]],
    ["group delete --name dev", ["group", "delete", "-n=prod", "--name", "dev"]],
    ["group delete -n dev", ["group", "delete", "-n", "dev", "--name", "prod"]],
    ["group delete -n dev", ["group", "delete", "-n", "dev", "--na", "prod"]],
    ["vm delete -g rg1 -n x", ["vm", "delete", "-g", "rg1", "-n", "x", "--resource-group", "rg2"]],
    ["vm show --resource-group rg1 --name vm1", ["vm", "show", "--resource-group", "rg1", "--name", "vm1", "-g", "rg2"]],
    ["vm show --resource-group rg1 --name vm1", ["vm", "show", "--resource-group", "rg1", "--name", "vm1", "-grg2"]],
    ["group create --name g --location westeurope", ["group", "create", "--name", "g", "--location", "westeurope", "-l", "eastus"]],
  ])("%s does not accept %j", (rule, argv) => {
    expect(decide(az, [rule], argv)).toMatchObject({ result: "unresolved", source: "no-rule" });
  });

  it("the call that gives each option once, in the rule's spelling, is still accepted", () => {
    expect(decide(az, ["group delete --name dev"], ["group", "delete", "--name", "dev", "--yes"]).result).toBe("accept");
    expect(decide(az, ["vm delete -g rg1 -n x"], ["vm", "delete", "-n", "x", "-g", "rg1"]).result).toBe("accept");
    expect(decide(az, ["vm delete -g rg1 -n x -g rg1"], ["vm", "delete", "-g", "rg1", "-n", "x", "-g", "rg1"]).result).toBe("accept");
  });

  it.each([
    [["group", "delete", "-n", "prod"]],
    [["group", "delete", "-nprod"]],
    [["group", "delete", "-n=prod", "--yes"]],
    [["group", "delete", "--name", "dev", "-n", "prod"]],
  ])("a deny rule naming --name prod denies %j", (argv) => {
    expect(decide(az, ["group delete"], argv, ["group delete --name prod"])).toMatchObject({ result: "deny", source: "explicit-deny" });
  });

  it("option_aliases: an option string stands in one row only", () => {
    const withAliases = (rows: unknown) => ({ version: "1", name: "z", tool: "z", command: "z", policy: { option_aliases: rows } });
    expect(providerFileSchema.safeParse(withAliases([{ option: "--name", aliases: ["-n"] }])).success).toBe(true);
    expect(
      providerFileSchema.safeParse(
        withAliases([
          { option: "--name", aliases: ["-n"] },
          { option: "--number", aliases: ["-n"] },
        ]),
      ).success,
    ).toBe(false);
    expect(providerFileSchema.safeParse(withAliases([{ option: "--name", aliases: [] }])).success).toBe(false);
    expect(providerFileSchema.safeParse(withAliases([{ option: "--name", aliases: ["n"] }])).success).toBe(false);
  });

  // azure-cli resource/_params.py, argument_context('group'): resource_group_name options_list ['--name', '-n', '--resource-group', '-g'].
  it.each([
    [["group", "delete", "--name", "dev", "-g", "prod"]],
    [["group", "delete", "--name", "dev", "--resource-group", "prod"]],
    [["group", "delete", "-n", "dev", "--resource-gr=prod"]],
    [["group", "delete", "-g", "prod", "-n", "dev"]],
    [["-o", "json", "group", "delete", "--name", "dev", "-g", "prod"]],
    [["group", "delete", "--only-show-errors", "--name", "dev", "-g", "prod"]],
  ])("group commands: --name, -n, --resource-group, -g are one argument; accept [group delete --name dev] does not accept %j", (argv) => {
    expect(decide(az, ["group delete --name dev", "group delete -n dev"], argv)).toMatchObject({ result: "unresolved", source: "no-rule" });
  });

  it.each([
    [["group", "delete", "-g", "prod", "--yes"]],
    [["group", "delete", "--resource-group", "prod"]],
    [["group", "delete", "-gprod"]],
    [["group", "show", "--resource-g=prod"]],
  ])("group commands: deny [group delete --name prod] / [group show --name prod] denies %j", (argv) => {
    const deny = ["group delete --name prod", "group show --name prod"];
    expect(decide(az, ["group"], argv, deny)).toMatchObject({ result: "deny", source: "explicit-deny" });
  });

  it("the most specific row wins: group deployment keeps --resource-group and --name (the deployment) apart, vm too", () => {
    expect(decide(az, ["group"], ["group", "delete", "-g", "prod"], ["group delete --name prod"]).result).toBe("deny");
    expect(decide(az, ["group"], ["group", "deployment", "delete", "-g", "prod", "-n", "d1"], ["group deployment delete --name prod"]).result).toBe("accept");
    expect(decide(az, ["vm"], ["vm", "delete", "-g", "prod", "-n", "x"], ["vm delete --name prod"]).result).toBe("accept");
    const rule = ["group deployment delete -g rg1 -n d1"];
    expect(decide(az, rule, ["group", "deployment", "delete", "-g", "rg1", "-n", "d1"]).result).toBe("accept");
    expect(decide(az, rule, ["group", "deployment", "delete", "-g", "rg1", "-n", "d1", "--resource-group", "rg2"]).result).toBe("unresolved");
    expect(decide(az, ["group delete -g dev"], ["group", "delete", "-g", "dev"]).result).toBe("accept");
  });

  it("option_aliases: a row may name command paths, and an option string stands once per path", () => {
    const withAliases = (rows: unknown) => ({ version: "1", name: "z", tool: "z", command: "z", policy: { option_aliases: rows } });
    const scoped = { option: "--name", aliases: ["-n", "-g"], commands: [["group"]] };
    expect(providerFileSchema.safeParse(withAliases([{ option: "--name", aliases: ["-n"] }, scoped])).success).toBe(true);
    expect(providerFileSchema.safeParse(withAliases([scoped, { ...scoped, option: "--names" }])).success).toBe(false);
    expect(providerFileSchema.safeParse(withAliases([{ ...scoped, commands: [] }])).success).toBe(false);
    expect(providerFileSchema.safeParse(withAliases([{ ...scoped, commands: [[]] }])).success).toBe(false);
  });

  it("a deny rule naming -g prod denies --resource-group prod and its prefixes, not another group", () => {
    const deny = ["vm delete -g prod"];
    expect(decide(az, ["vm delete"], ["vm", "delete", "--resource-group", "prod", "-n", "x"], deny).result).toBe("deny");
    expect(decide(az, ["vm delete"], ["vm", "delete", "--resource-gr=prod", "-n", "x"], deny).result).toBe("deny");
    expect(decide(az, ["vm delete"], ["vm", "delete", "--resource-group", "dev", "-n", "x"], deny).result).toBe("accept");
  });
});

describe("kubectl: an accept rule naming a repeatable option's value accepts no call adding values", () => {
  it.each([
    [
      "create clusterrolebinding b --clusterrole=view --group=devs",
      ["create", "clusterrolebinding", "b", "--clusterrole=view", "--group=devs", "--group=system:unauthenticated"],
    ],
    [
      "create clusterrolebinding b --clusterrole=view --group=devs",
      ["create", "clusterrolebinding", "b", "--clusterrole=view", "--group", "devs", "--group=system:masters"],
    ],
    ["create role r --verb=get --resource=pods", ["create", "role", "r", "--verb=get", "--resource=pods", "--resource=secrets"]],
    ["create role r --verb=get --resource=pods", ["create", "role", "r", "--verb", "get", "--verb=*", "--resource=pods"]],
    ["apply -f safe.yaml", ["apply", "-f", "safe.yaml", "-f", "other.yaml"]],
    ["apply -f safe.yaml", ["apply", "-fsafe.yaml", "--filename=other.yaml"]],
  ])("%s does not accept %j", (rule, argv) => {
    expect(decide(kubectl, [rule], argv)).toMatchObject({ result: "unresolved", source: "no-rule" });
  });

  it("the call with the rule's values is accepted; a rule naming the option without a value accepts any number", () => {
    expect(
      decide(
        kubectl,
        ["create clusterrolebinding b --clusterrole=view --group=devs"],
        ["create", "clusterrolebinding", "b", "--clusterrole", "view", "--group", "devs"],
      ).result,
    ).toBe("accept");
    expect(
      decide(kubectl, ["create role r --verb=get --verb=list --resource=pods"], ["create", "role", "r", "--verb=list", "--verb=get", "--resource=pods"]).result,
    ).toBe("accept");
    expect(decide(kubectl, ["apply -f"], ["apply", "-f", "a.yaml", "-f", "b.yaml"]).result).toBe("accept");
    expect(decide(kubectl, ["get pods -n dev"], ["get", "pods", "-n", "dev", "-o", "wide"]).result).toBe("accept");
  });
});

describe("kubectl: an accept rule naming a namespace does not accept --all-namespaces, which wins over it", () => {
  it.each([
    [["get", "secrets", "-n", "dev", "-A"]],
    [["get", "secrets", "-A", "-n", "dev"]],
    [["get", "secrets", "--namespace=dev", "--all-namespaces"]],
    [["get", "secrets", "-ndev", "--all-namespaces=true"]],
    [["get", "secrets", "-n", "dev", "-A=false"]],
  ])("get secrets -n dev does not accept %j", (argv) => {
    expect(decide(kubectl, ["get secrets -n dev"], argv)).toMatchObject({ result: "unresolved", source: "no-rule" });
  });

  it("the namespaced call is accepted, and a rule naming no namespace still accepts -A", () => {
    expect(decide(kubectl, ["get secrets -n dev"], ["get", "secrets", "-n", "dev"]).result).toBe("accept");
    expect(decide(kubectl, ["get secrets"], ["get", "secrets", "-A"]).result).toBe("accept");
  });

  it("a rule that names -A itself accepts the call it spells (review 16)", () => {
    expect(decide(kubectl, ["get pods -n prod -A"], ["get", "pods", "-n", "prod", "-A"]).result).toBe("accept");
    expect(decide(kubectl, ["get pods -n prod -A"], ["get", "pods", "-A", "--namespace=prod"]).result).toBe("accept");
  });
});
