/**
 * az's alias extension (red team azg F4): when the operator has it installed, it
 * rewrites the words of every later call before az parses them (azure-cli-extensions
 * src/alias/azext_alias/__init__.py registers alias_event_handler on
 * EVENT_INVOKER_PRE_CMD_TBL_TRUNCATE and replaces `args[:]` with AliasManager.transform:
 * any word not after an option that names an alias becomes the alias's command). So
 * `alias create -n rg1 -c "rg1 --subscription OTHER"` makes a later accepted
 * `vm list -g rg1` run with another subscription, out of the decision's sight. The
 * commands that write the alias table are refused whatever the rules say; listing
 * stays up to the rules. Through the bundled az provider as the server builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const az = bundledPolicyContext("az");
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(az, { shared: ruleList([], ["alias", "/.*/"]) }), argv).decision;

describe("az: the alias table is the broker's", () => {
  it.each(
    [
      ["alias", "create", "-n", "mine", "-c", "account get-access-token"],
      ["alias", "create", "--name", "rg1", "--command", "vm list"],
      ["alias", "import", "--source", "aliases.ini"],
      ["alias", "remove", "-n", "mine"],
      ["alias", "remove-all", "--yes"],
      ["alias", "export", "-p", "out.ini"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s is refused as a locked command", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("listing the aliases stays up to the rules", () => {
    expect(decide(["alias", "list"]).result).toBe("accept");
  });
});
