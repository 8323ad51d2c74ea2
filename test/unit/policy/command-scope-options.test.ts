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
      ["compute", "shared-vpc", "associated-projects", "add", "p", "--host-project", "OTHER"],
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
