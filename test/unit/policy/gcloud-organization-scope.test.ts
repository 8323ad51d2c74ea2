/**
 * gcloud arguments that name an organization or folder (red team azg F2): a scope
 * over many projects. `logging read --resource-names=projects/OTHER` was refused
 * (targeting.locked_values) while `--resource-names=organizations/ORG`, which reads
 * every project's logs, and `logging sinks create ... --organization=ORG
 * --include-children`, which exports them, ran under a rule accepting `logging`.
 * Both spellings, the value (`organizations/`, `folders/`) and the flags
 * (`--organization`, `--folder`, ...: gcloud's own static completion tree), are
 * refused whatever the rules say. Through the bundled gcloud provider as the
 * server builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const gcloud = bundledPolicyContext("gcloud");
const ACCEPT = ["logging", "asset", "iam roles", "resource-manager", "beta logging"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(gcloud, { shared: ruleList([], ACCEPT) }), argv).decision;

describe("gcloud: an organization or folder scope is refused as another project is", () => {
  it("the project spelling is refused (the baseline the wider scopes must match)", () => {
    expect(decide(["logging", "read", "severity>=ERROR", "--resource-names=projects/other"])).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it.each(
    [
      ["logging", "read", "severity>=ERROR", "--resource-names=organizations/123456"],
      ["logging", "read", "severity>=ERROR", "--resource-names", "Folders%2F42"],
      ["asset", "search-all-resources", "--scope=organizations/123456"],
      ["asset", "search-all-iam-policies", "--scope", "folders/42"],
      // A `%` before a row starting with a hex letter: decoding `%af` would hide "folders/", so both texts are read.
      ["asset", "search-all-iam-policies", "--scope", "%afolders/42"],
      ["asset", "search-all-iam-policies", "--scope", "%afolders%2F42"],
      ["logging", "read", "severity>=ERROR", "--organization=123456"],
      ["logging", "read", "severity>=ERROR", "--folder", "42"],
      ["logging", "sinks", "create", "s", "storage.googleapis.com/b", "--organization=123456", "--include-children"],
      ["beta", "logging", "sinks", "create", "s", "storage.googleapis.com/b", "--folder=42", "--include-children"],
      ["iam", "roles", "create", "r", "--organization=123456", "--permissions=p"],
      ["resource-manager", "org-policies", "describe", "constraints/x", "--organization=123456"],
      ["asset", "export", "--output-path=gs://b/o", "--folder=42"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decision.reason).toMatch(/organization|folder/u);
  });

  it("the same reads in the pinned project stay up to the rules, and a longer flag name is its own", () => {
    expect(decide(["logging", "read", "severity>=ERROR"]).result).toBe("accept");
    expect(decide(["asset", "search-all-resources"]).result).toBe("accept");
    // gcloud reads no abbreviation: --organizational-unit is not --organization.
    expect(decide(["iam", "roles", "list", "--organizational-unit=x"]).result).toBe("accept");
  });
});
