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
