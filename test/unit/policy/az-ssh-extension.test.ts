/**
 * az's ssh extension (red team azg F6): `az ssh vm` and `az ssh arc` pass their
 * positional words to OpenSSH as its own arguments (azure-cli-extensions
 * src/ssh/azext_ssh/_params.py: `c.positional('ssh_args', nargs='*', help='Additional
 * arguments passed to OpenSSH')`), and every command of the group runs ssh or
 * ssh-keygen from `--ssh-client-folder`, a folder the caller names. So `ssh vm -n v
 * -g g -- -oProxyCommand=CMD` runs CMD on the operator's machine, as gcloud's
 * `compute ssh -- -oProxyCommand=` would (refused there). The groups are locked
 * commands whatever the rules say. Through the bundled az provider as the server builds it.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const az = bundledPolicyContext("az");
const decide = (argv: readonly string[]) => evaluatePolicy(compilePolicy(az, { shared: ruleList([], ["ssh", "sftp", "vm"]) }), argv).decision;

describe("az: the ssh extension's commands run local programs on the caller's words", () => {
  it.each(
    [
      ["ssh", "vm", "-n", "vm1", "-g", "rg", "--", "-oProxyCommand=touch /tmp/x"],
      ["ssh", "vm", "--ip", "10.0.0.4", "--ssh-client-folder", "./bin"],
      ["ssh", "arc", "-n", "m1", "-g", "rg", "--ssh-proxy-folder", "./p"],
      ["ssh", "config", "--file", "./cfg", "-n", "vm1", "-g", "rg"],
      ["ssh", "cert", "--file", "./c", "--ssh-client-folder", "./bin"],
      ["sftp", "connect", "--storage-account", "s", "--ssh-client-folder", "./bin"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("%s is refused as a locked command", (_, argv) => {
    expect(decide(argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("vm commands stay up to the rules", () => {
    expect(decide(["vm", "show", "-n", "vm1", "-g", "rg"]).result).toBe("accept");
  });
});
