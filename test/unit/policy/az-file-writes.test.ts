/**
 * az's local file writes (`argv.file_writes`, from scripts/providers/az-file-writes.txt,
 * generated from az's own argument help by az_file_writes.py) in every spelling az
 * reads (full name, `=value`, prefix, short form, short form with the value attached),
 * and the floor rows for code that later calls run: az `extension add|update`, aws
 * `codeartifact login`, `deploy install|uninstall`, `opsworks register`
 * (red team 8 findings 3 and 5).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { lockedCommandsOf } from "../../../src/config/locked-floor.js";
import { providerFileSchema } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const at = (file: string): string => fileURLToPath(new URL(`../../../${file}`, import.meta.url));
const providerOf = (name: string) => providerFileSchema.parse(parse(readFileSync(at(`providers/${name}/provider.yaml`), "utf8")));
const contextOf = (name: string) => ({ ...bundledPolicyContext(name), lockedCommands: lockedCommandsOf(providerOf(name)) });
const az = contextOf("az");
const aws = contextOf("aws");
const decide = (context: typeof az, accept: readonly string[], argv: readonly string[]) =>
  evaluatePolicy(compilePolicy(context, { shared: ruleList([], accept) }), argv).decision;

const CONFIG = "/root/.azure/config";

describe("az calls that write a local file need a rule naming the command", () => {
  it.each([
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", "-f", CONFIG]],
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", `-f${CONFIG}`]],
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", `--file=${CONFIG}`]],
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", "--fi", CONFIG]],
    [["storage blob"], ["storage", "blob", "download-batch", "-s", "c", "-d", "/root/.azure"]],
    [["keyvault"], ["keyvault", "secret", "download", "--vault-name", "v", "-n", "s", "-f", CONFIG]],
    [["keyvault"], ["keyvault", "secret", "backup", "--vault-name", "v", "-n", "s", "--file", CONFIG]],
    [["aks"], ["aks", "install-cli", "--install-location", "/usr/local/bin/kubectl"]],
    [["/^bicep /"], ["bicep", "build", "--file", "main.bicep", "--outfile", CONFIG]],
  ])("rule %j leaves %j unresolved, quoting no path", (accept, argv) => {
    const decision = decide(az, accept, argv);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain("can write a local file");
    expect(decision.reason).not.toContain(".azure");
  });

  it("a rule naming the command path accepts it; the same command without the option stays with the broad rule", () => {
    const download = ["storage", "blob", "download", "-c", "c", "-n", "b", "-f", CONFIG];
    expect(decide(az, ["storage blob download"], download).result).toBe("accept");
    // Without -f the blob goes to stdout: nothing is written.
    expect(decide(az, ["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b"]).result).toBe("accept");
    expect(decide(az, ["storage"], ["storage", "blob", "list", "-c", "c"]).result).toBe("accept");
  });

  it("provider.yaml's file_writes are the listed writers, every long alias and short form included", () => {
    const rows = new Set((providerOf("az").argv?.file_writes ?? []).map((row) => `${row.command.join(" ")} ${row.option ?? ""} ${row.short ?? ""}`.trim()));
    const listed = readFileSync(at("scripts/providers/az-file-writes.txt"), "utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"));
    expect(listed.length).toBeGreaterThan(30);
    for (const line of listed) {
      const words = line.split(" ");
      const first = words.findIndex((word) => word.startsWith("-"));
      const command = words.slice(0, first).join(" ");
      const longs = words.slice(first).filter((word) => word.startsWith("--"));
      const short = words.slice(first).find((word) => !word.startsWith("--"));
      longs.forEach((option, i) => expect(rows.has(`${command} ${option}${i === 0 && short ? ` ${short}` : ""}`), line).toBe(true));
    }
  });
});

describe("the floor: code that every later call runs", () => {
  it.each([
    ["extension", "add", "--source", "/tmp/evil-0.1-py3-none-any.whl", "-y"],
    ["extension", "add", "--name", "ssh"],
    ["extension", "update", "--name", "ssh"],
  ])("az %j is refused whatever the rules", (...argv) => {
    expect(decide(az, ["/.*/"], argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("az extension list stays with the policy", () => {
    expect(decide(az, ["/.*/"], ["extension", "list"]).result).toBe("accept");
  });

  it.each([
    ["codeartifact", "login", "--tool", "npm", "--domain", "d", "--repository", "r"],
    ["deploy", "install", "--config-file", "c.yml"],
    ["deploy", "uninstall"],
    ["opsworks", "register", "--infrastructure-class", "ec2", "--stack-id", "s", "--local"],
  ])("aws %j is refused whatever the rules", (...argv) => {
    expect(decide(aws, ["/.*/"], argv)).toMatchObject({ result: "deny", source: "locked-command" });
  });

  it("aws codeartifact list-domains stays with the policy", () => {
    expect(decide(aws, ["/.*/"], ["codeartifact", "list-domains"]).result).toBe("accept");
  });
});
