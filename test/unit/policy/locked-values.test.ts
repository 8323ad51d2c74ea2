/**
 * Red team 9 F3: a command's own argument naming another Azure subscription or
 * Google Cloud project does what the locked `--subscription` / `--project`
 * does. The bundled providers' `targeting.locked_values` refuse such a value in
 * any argument, before any rule is read: an accept-everything rule set cannot
 * allow it, and the reason never echoes the value.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { providerFileSchema } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

function decide(ctx: ProviderPolicyContext, argv: readonly string[]) {
  return evaluatePolicy(compilePolicy(ctx, { shared: ruleList([], ["/.*/"]) }), argv).decision;
}

const az = bundledPolicyContext("az");
const gcloud = bundledPolicyContext("gcloud");
const aws = bundledPolicyContext("aws");
const kubectl = bundledPolicyContext("kubectl");

describe("az: a full resource ID names a subscription, whatever option carries it", () => {
  it.each([
    ["role", "assignment", "create", "--assignee", "a", "--role", "Owner", "--scope", "/subscriptions/OTHER"],
    ["role", "assignment", "list", "--scope=/subscriptions/OTHER"],
    ["role", "assignment", "list", "--sco", "/subscriptions/OTHER"],
    ["tag", "list", "--resource-id", "/SUBSCRIPTIONS/OTHER/resourceGroups/g"],
    ["monitor", "metrics", "list", "--resource", "/subscriptions/OTHER/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/v"],
    ["network", "vnet", "peering", "create", "-g", "g", "--vnet-name", "v", "-n", "p", "--remote-vnet", "/Subscriptions/OTHER/x"],
    ["resource", "show", "--id", "/subscriptions/OTHER/x"],
    ["lock", "list", "-g/subscriptions/OTHER"],
    ["lock", "list", "--", "/subscriptions/OTHER/resourceGroups/g"],
    ["tag", "list", "--resource-id", "%2Fsubscriptions%2FOTHER%2FresourceGroups%2Fg"],
    ["tag", "list", "--resource-id", "%252Fsubscriptions%252FOTHER"],
    ["role", "assignment", "create", "--assignee", "a", "--role", "Owner", "--scope", "/providers/Microsoft.Management/managementGroups/root"],
  ])("az %j is refused as --subscription", (...argv) => {
    const decision = decide(az, argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option", option: "--subscription" });
    expect(decision.reason).not.toMatch(/OTHER|root/u);
  });

  it.each([
    ["role", "assignment", "list", "--scope", "/"],
    ["role", "assignment", "create", "--assignee", "a", "--role", "Owner", "--scope=/"],
    ["policy", "assignment", "list", "--sco", "/"],
  ])("az %j (the tenant root, above every subscription) is refused as --scope", (...argv) => {
    expect(decide(az, argv)).toMatchObject({ result: "deny", source: "locked-option", option: "--scope" });
  });

  it.each([
    ["role", "assignment", "list", "-g", "g"],
    ["tag", "list", "--resource-group", "g"],
    ["monitor", "metrics", "list", "--resource", "v", "-g", "g", "--resource-type", "Microsoft.Compute/virtualMachines"],
    ["keyvault", "secret", "show", "--id", "https://v.vault.azure.net/secrets/s"],
  ])("leaves az %j to the policy", (...argv) => {
    expect(decide(az, argv).result).toBe("accept");
  });
});

describe("gcloud: a full resource name or URI names a project, whatever carries it", () => {
  it.each([
    ["secrets", "versions", "access", "projects/OTHER/secrets/s/versions/latest"],
    ["secrets", "describe", "projects/OTHER/secrets/s"],
    ["compute", "instances", "describe", "https://www.googleapis.com/compute/v1/projects/OTHER/zones/z/instances/i"],
    ["compute", "instances", "create", "i", "--network=projects/OTHER/global/networks/n"],
    ["asset", "search-all-resources", "--scope", "Projects/OTHER"],
    ["secrets", "describe", "projects%2FOTHER%2Fsecrets%2Fs"],
    ["secrets", "describe", "--", "projects/OTHER/secrets/s"],
  ])("gcloud %j is refused as --project", (...argv) => {
    const decision = decide(gcloud, argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option", option: "--project" });
    expect(decision.reason).not.toContain("OTHER");
  });

  it.each([
    ["secrets", "describe", "s"],
    ["secrets", "versions", "access", "latest", "--secret=s"],
    ["compute", "instances", "describe", "i", "--zone", "z"],
    ["pubsub", "topics", "describe", "t"],
  ])("leaves gcloud %j to the policy", (...argv) => {
    expect(decide(gcloud, argv).result).toBe("accept");
  });
});

describe("locked values are the provider's own", () => {
  it("aws and kubectl declare none: the same text stays up to the policy", () => {
    expect(decide(aws, ["s3", "ls", "s3://b/subscriptions/projects/"]).result).toBe("accept");
    expect(decide(kubectl, ["get", "configmap", "projects/x"]).result).toBe("accept");
  });

  it("refuses a row's text in any argument, in any case, with any surroundings and percent-encoded slashes", () => {
    const rows = [...(az.grammar.lockedValues ?? []), ...(gcloud.grammar.lockedValues ?? [])];
    expect(rows.map((row) => row.contains)).toEqual([
      "subscriptions/",
      "managementgroups/",
      "projects/",
      "organizations/",
      "folders/",
      "billingaccounts/",
      "bq://",
    ]);
    const word = fc.stringMatching(/^[a-z0-9]{1,6}$/u);
    fc.assert(
      fc.property(
        fc.constantFrom(...rows),
        fc.string({ unit: fc.constantFrom("a", "/", "=", ":", "x", "%"), maxLength: 6 }),
        fc.string({ unit: fc.constantFrom("a", "/", "-", "1"), maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }),
        fc.boolean(),
        fc.array(word, { maxLength: 3 }),
        fc.constantFrom("", "--opt=", "--"),
        (row, before, after, upper, encode, rest, carrier) => {
          const cased = [...row.contains].map((c, i) => (upper[i % upper.length] === true ? c.toUpperCase() : c)).join("");
          const value = `${before}${encode ? cased.replace("/", "%2F") : cased}${after}`;
          const ctx = row.option === "--project" ? gcloud : az;
          const tail = carrier === "--" ? ["--", value] : [`${carrier}${value}`];
          const argv = ["vm", "list", ...rest, ...tail];
          const decision = decide(ctx, argv);
          expect(decision).toMatchObject({ result: "deny", source: "locked-option", option: row.option });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a row needs a locked-option name and at least 3 characters of text", () => {
    const base = { version: "1", name: "p", tool: "p", command: "p" };
    const withRow = (row: object) => providerFileSchema.safeParse({ ...base, targeting: { locked_options: ["--project"], locked_values: [row] } }).success;
    expect(withRow({ contains: "projects/", option: "--project", names: "a project" })).toBe(true);
    expect(withRow({ contains: "/", option: "--project", names: "a project" })).toBe(false);
    expect(withRow({ contains: "projects/", option: "project", names: "a project" })).toBe(false);
  });
});
