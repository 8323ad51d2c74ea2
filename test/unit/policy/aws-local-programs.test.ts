/**
 * AWS CLI commands that run a local program (red team 11 F1: `emr ssh
 * --command=-oProxyCommand=CMD` made the CLI run `ssh … -oProxyCommand=CMD`,
 * CMD on this machine with the call's credentials) are locked commands of the
 * bundled aws provider: no rule, grant or answer lets one through.
 *
 * The list is checked against the installed CLI: every awscli source file that
 * starts a process must be reviewed here, so a CLI upgrade that adds one fails
 * this test instead of slipping through.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";
import { testPython } from "../../support/test-python.js";

/** Each awscli file that starts a process, with the commands it defines that must be locked (none: why not). */
const REVIEWED: Readonly<Record<string, readonly string[][] | string>> = {
  "customizations/emr/ssh.py": [
    ["emr", "ssh"],
    ["emr", "socks"],
    ["emr", "put"],
    ["emr", "get"],
  ],
  "customizations/codeartifact/login.py": [["codeartifact", "login"]],
  "customizations/codedeploy/systems.py": [
    ["deploy", "install"],
    ["deploy", "uninstall"],
  ],
  "customizations/sessionmanager.py": [["ssm", "start-session"]],
  "customizations/ecs/executecommand.py": [["ecs", "execute-command"]],
  "alias.py":
    "runs the `!` aliases of ~/.aws/cli/alias: the bundled provider's runtime.home_config refuses every call while that file exists (red team 22 F2), so no alias runs through Torii",
  "help.py": "runs groff and the pager for `help`; the programs are fixed, the agent's words are not passed to them",
  "utils.py": "runs the pager named by the operator's configuration (cli_pager, AWS_PAGER) on the CLI's own output",
  "testutils.py": "test helpers, not reachable from a command",
};

const STARTS_A_PROCESS = /\b(subprocess|Popen|os\.system|os\.exec\w*|os\.spawn\w*|pty\.spawn)\b/u;

function awscliDir(): string {
  return execFileSync(testPython(), ["-c", "import awscli, os; print(os.path.dirname(awscli.__file__))"], { encoding: "utf8" }).trim();
}

function filesStartingProcesses(root: string): string[] {
  return (readdirSync(root, { recursive: true, encoding: "utf8" }) as string[])
    .filter((file) => file.endsWith(".py") && !file.split(path.sep).includes("tests"))
    .filter((file) => STARTS_A_PROCESS.test(readFileSync(path.join(root, file), "utf8")))
    .map((file) => file.split(path.sep).join("/"))
    .sort();
}

describe("aws commands that run a local program", () => {
  it("every awscli file that starts a process is reviewed (a CLI upgrade that adds one fails here)", () => {
    expect(filesStartingProcesses(awscliDir())).toEqual(Object.keys(REVIEWED).sort());
  });

  it("each reviewed command is refused whatever the rules, with the words of the reproduction", () => {
    const ctx = bundledPolicyContext("aws");
    const policy = compilePolicy(ctx, { shared: ruleList([], ["/.*/", "emr ssh", "emr", "deploy", "ssm", "ecs", "codeartifact"]) });
    const commands = Object.values(REVIEWED).filter((entry): entry is string[][] => typeof entry !== "string");
    for (const command of commands.flat()) {
      const decision = evaluatePolicy(policy, [...command, "--cluster-id", "j-1", "--command=-oProxyCommand=touch /tmp/x"]).decision;
      expect(decision.result, command.join(" ")).toBe("deny");
      expect(decision.reason, command.join(" ")).toMatch(/locked|runs|local|prints/u);
    }
    // A read of the same service stays with the rules.
    expect(evaluatePolicy(policy, ["emr", "list-clusters"]).decision.result).toBe("accept");
  });
});
