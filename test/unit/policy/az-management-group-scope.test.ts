/**
 * az arguments that name a management group (red team azg F1): `policy assignment
 * create --management-group MG`, `deployment mg create -m MG` act at that scope,
 * over every subscription under it, as the
 * `/providers/Microsoft.Management/managementGroups/MG` ID that
 * targeting.locked_values refuses. The attribute spelling is refused as the ID
 * spelling is, under rules that accept the command, in every argparse spelling
 * (prefix, `=`, glued short). Options from azure-cli's own parameter tables
 * (resource/_params.py management_group_id_type, policyinsights and blueprint
 * `--management-group/-m`). Through the bundled az provider as the server builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const az = bundledPolicyContext("az");
const ACCEPT = ["policy", "deployment", "stack", "blueprint"];
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(az, { shared: ruleList([], ACCEPT) }), argv).decision;

describe("az: a management group named by an argument is refused as its ID is", () => {
  it("the ID spelling is refused (the baseline the argument spellings must match)", () => {
    const decision = decide(["policy", "assignment", "create", "--policy", "p", "--scope", "/providers/Microsoft.Management/managementGroups/Root"]);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
  });

  it.each(
    [
      ["policy", "assignment", "create", "--policy", "p", "--management-group", "Root"],
      ["policy", "assignment", "create", "--policy", "p", "--management-group=Root"],
      ["policy", "definition", "create", "-n", "d", "--rules", "r.json", "--management-gr", "Root"],
      ["policy", "state", "list", "-m", "Root"],
      ["policy", "remediation", "create", "-n", "r", "--policy-assignment", "a", "-mRoot"],
      ["policy", "state", "summarize", "--management-group-name", "Root"],
      ["deployment", "mg", "create", "-m", "Root", "--location", "eastus", "--template-spec", "ts"],
      ["deployment", "mg", "create", "--management-group-id=Root", "--location", "eastus"],
      ["deployment", "mg", "delete", "--management-group-i", "Root", "-n", "d"],
      ["deployment", "operation", "mg", "list", "-m", "Root", "-n", "d"],
      ["stack", "mg", "delete", "-m", "Root", "-n", "s"],
      ["blueprint", "assignment", "create", "-n", "a", "-m", "Root"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s", (_, argv) => {
    const decision = decide(argv);
    expect(decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decision.reason).toMatch(/management group/u);
  });

  it("the same commands in the signed-in subscription stay up to the rules", () => {
    expect(decide(["policy", "assignment", "create", "--policy", "p", "-g", "rg"]).result).toBe("accept");
    expect(decide(["policy", "state", "list", "-g", "rg"]).result).toBe("accept");
    // `deployment group create -g rg -m Incremental` (-m: the mode) is a locked command since scope 3 (ARM templates).
    expect(decide(["deployment", "group", "list", "-g", "rg"]).result).toBe("accept");
  });
});
