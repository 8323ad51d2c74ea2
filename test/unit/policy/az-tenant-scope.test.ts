/**
 * az commands whose scope is the tenant, above the signed-in subscription
 * (scope 2), refused whatever the rules say as `--scope /` and a management
 * group already are: `rest` (a subscription's path is refused by
 * targeting.locked_values, so its URL can only name a tenant-level path, and
 * `/subscriptions/{subscriptionId}/../OTHER` would be normalised into another
 * subscription after az fills in the placeholder), `deployment tenant`,
 * `deployment operation tenant`, `account management-group`, `billing`, and the
 * Microsoft Entra directory (`ad`, but `signed-in-user`). Through the bundled az
 * provider as the server builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const az = bundledPolicyContext("az");
const ACCEPT = ["rest", "deployment", "account", "billing", "ad", "role", "group"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(az, { shared: ruleList([], ACCEPT) }), argv).decision;

describe("az: tenant-scope commands are locked", () => {
  it.each(
    [
      ["rest", "--url", "/providers/Microsoft.Authorization/roleAssignments?api-version=2022-04-01"],
      ["rest", "--method", "put", "--url", "/providers/Microsoft.Authorization/roleAssignments/x?api-version=2022-04-01", "--body", "{}"],
      ["rest", "-u", "/tenants?api-version=2022-12-01"],
      ["rest", "--uri=/providers/Microsoft.Management/getEntities?api-version=2021-04-01", "-m", "post"],
      ["deployment", "tenant", "create", "-n", "d", "-l", "eastus", "--template-spec", "ts"],
      ["deployment", "tenant", "list"],
      ["deployment", "operation", "tenant", "list", "-n", "d"],
      ["account", "management-group", "create", "-n", "mg"],
      ["account", "management-group", "subscription", "add", "-n", "mg", "-s", "sub"],
      ["account", "management-group", "show", "-n", "Root", "--expand", "--recurse"],
      ["billing", "account", "list"],
      ["billing", "role-assignment", "delete", "--account-name", "a", "--name", "n"],
      ["ad", "group", "member", "add", "-g", "admins", "--member-id", "x"],
      ["ad", "app", "create", "--display-name", "x"],
      ["ad", "user", "list"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("subscription-scope commands of the same groups stay up to the rules", () => {
    expect(decide(["deployment", "group", "list", "-g", "rg"]).result).toBe("accept");
    expect(decide(["deployment", "sub", "list"]).result).toBe("accept");
    expect(decide(["account", "show"]).result).toBe("accept");
    expect(decide(["account", "lock", "list"]).result).toBe("accept");
    expect(decide(["role", "assignment", "list", "--all"]).result).toBe("accept");
    expect(decide(["ad", "signed-in-user", "show"]).result).toBe("accept");
    expect(decide(["group", "list"]).result).toBe("accept");
  });
});

describe("az: another subscription through the account group's own arguments (scope 3)", () => {
  it.each(
    [
      ["account", "show", "-s", "OTHER"],
      ["account", "show", "-sOTHER"],
      ["account", "show", "-s=OTHER"],
      ["account", "show", "-n", "OTHER"],
      ["account", "show", "--name", "OTHER"],
      ["account", "show", "--name=OTHER"],
      ["account", "show", "--na", "OTHER"],
      ["account", "show", "--output", "json", "-s", "OTHER"],
      ["account", "list-locations", "-s", "OTHER"],
      ["blueprint", "list", "-s", "OTHER"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    expect(evaluatePolicy(compilePolicy(az, { shared: ruleList([], [...ACCEPT, "blueprint"]) }), argv).decision).toMatchObject({
      result: "deny",
      source: "locked-option",
    });
  });

  it.each(
    [
      ["account", "list"],
      ["account", "list", "--all", "--refresh"],
      ["account", "tenant", "list"],
      ["account", "alias", "create", "--name", "n", "--billing-scope", "b", "--display-name", "d", "--workload", "Production"],
      ["account", "subscription", "rename", "--id", "OTHER", "--name", "n"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s is a locked command", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("the signed-in subscription stays up to the rules", () => {
    expect(decide(["account", "show"]).result).toBe("accept");
    expect(decide(["account", "show", "--output", "json"]).result).toBe("accept");
    expect(decide(["account", "list-locations"]).result).toBe("accept");
    expect(decide(["account", "lock", "show", "-n", "lock1"]).result).toBe("accept");
  });
});

describe("az: a template whose nested deployments may name another subscription is not sent (scope 3)", () => {
  const withRules = (argv: readonly string[]) => evaluatePolicy(compilePolicy(az, { shared: ruleList([], [...ACCEPT, "stack", "resource"]) }), argv).decision;

  it.each(
    [
      ["deployment", "group", "create", "-g", "rg", "--template-file", "t.json"],
      ["deployment", "group", "create", "-g", "rg", "-f", "main.bicep", "-p", "p.json"],
      ["deployment", "group", "validate", "-g", "rg", "--template-spec", "ts"],
      ["deployment", "group", "what-if", "-g", "rg", "--template-file", "t.json"],
      ["deployment", "sub", "create", "-l", "eastus", "--template-file", "t.json"],
      ["deployment", "sub", "what-if", "-l", "eastus", "--template-file", "t.json"],
      ["deployment", "create", "-l", "eastus", "--template-file", "t.json"],
      ["group", "deployment", "create", "-g", "rg", "--template-file", "t.json"],
      ["stack", "group", "create", "-n", "s", "-g", "rg", "--template-file", "t.json", "--deny-settings-mode", "none"],
      ["stack", "sub", "validate", "-n", "s", "-l", "eastus", "--template-file", "t.json"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    expect(withRules(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it.each(
    [
      ["resource", "create", "-g", "rg", "-n", "d", "--resource-type", "Microsoft.Resources/deployments", "--properties", "{}"],
      ["resource", "create", "-g", "rg", "-n", "d", "--namespace", "Microsoft.Resources", "--resource-type", "deployments", "--properties", "{}"],
      ["resource", "create", "-g", "rg", "-n", "d", "--resource-type=microsoft.resources/deployments", "--properties", "{}"],
      ["resource", "update", "-g", "rg", "-n", "d", "--resource-t", "Microsoft.Resources/deployments", "--set", "properties.mode=Complete"],
      ["resource", "patch", "-g", "rg", "-n", "d", "--resource-type", "Microsoft.Resources/deployments", "--properties", "{}"],
      [
        "resource",
        "invoke-action",
        "-g",
        "rg",
        "-n",
        "d",
        "--resource-type",
        "Microsoft.Resources/deployments",
        "--action",
        "validate",
        "--request-body",
        "{}",
      ],
      ["resource", "tag", "-g", "rg", "-n", "d", "--resource-type", "Microsoft.Resources/deployments", "--tags", "a=b"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    expect(withRules(argv)).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it.each(
    [
      ["resource", "list", "--resource-type", "Microsoft.Resources/deployments"],
      ["resource", "show", "-g", "rg", "-n", "d", "--resource-type", "Microsoft.Resources/deployments"],
      ["resource", "list", "--namespace", "Microsoft.Resources"],
      ["resource", "delete", "-g", "rg", "-n", "d", "--resource-type", "Microsoft.Resources/deployments"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("a resource command that sends no template stays up to the rules: %s", (_, argv) => {
    expect(withRules(argv)).toMatchObject({ result: "accept", source: "rules" });
  });

  it("reading deployments stays up to the rules", () => {
    expect(withRules(["deployment", "group", "list", "-g", "rg"]).result).toBe("accept");
    expect(withRules(["deployment", "group", "show", "-g", "rg", "-n", "d"]).result).toBe("accept");
    expect(withRules(["deployment", "group", "export", "-g", "rg", "-n", "d"]).result).toBe("accept");
    expect(withRules(["deployment", "operation", "group", "list", "-g", "rg", "-n", "d"]).result).toBe("accept");
    expect(withRules(["stack", "group", "list", "-g", "rg"]).result).toBe("accept");
    expect(withRules(["resource", "create", "-g", "rg", "-n", "w", "--resource-type", "Microsoft.Web/sites", "--properties", "{}"]).result).toBe("accept");
  });
});
