/**
 * az's local file writes (`argv.file_writes`, from scripts/providers/az-file-writes.txt:
 * az_file_writes.py lists every argument whose name or help text may name a local path,
 * each with the verdict of a reviewed row) in every spelling az reads (full name,
 * `=value`, prefix, short form, short form with the value attached),
 * and the floor rows for code that later calls run: az `extension add|update`, aws
 * `codeartifact login`, `deploy install|uninstall`, `opsworks register`
 * (red team 8 findings 3 and 5). Red team 9 F2: writers the help-text regex missed
 * (`network private-dns zone export -f`), or whose module does not load (`network dns zone
 * export -f`), or without help text (`dls fs download --destination-path`).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lockedCommandsOf } from "../../../src/config/locked-floor.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, bundledProviderConfig, ruleList } from "../../support/policy-helpers.js";

const at = (file: string): string => fileURLToPath(new URL(`../../../${file}`, import.meta.url));
const contextOf = (name: string) => ({ ...bundledPolicyContext(name), lockedCommands: lockedCommandsOf(bundledProviderConfig(name)) });
const az = contextOf("az");
const aws = contextOf("aws");
const decide = (context: typeof az, accept: readonly string[], argv: readonly string[]) =>
  evaluatePolicy(compilePolicy(context, { shared: ruleList([], accept) }), argv).decision;

const CONFIG = "/root/.azure-old/config";
const BASHRC = "/root/.bashrc";

describe("az calls that write a local file need a rule naming the command", () => {
  it.each([
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", "-f", CONFIG]],
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", `-f${CONFIG}`]],
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", `--file=${CONFIG}`]],
    [["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b", "--fi", CONFIG]],
    [["storage blob"], ["storage", "blob", "download-batch", "-s", "c", "-d", "/root/.azure-old"]],
    [["keyvault"], ["keyvault", "secret", "download", "--vault-name", "v", "-n", "s", "-f", CONFIG]],
    [["keyvault"], ["keyvault", "secret", "backup", "--vault-name", "v", "-n", "s", "--file", CONFIG]],
    [["aks"], ["aks", "create", "-g", "g", "-n", "c", "--generate-ssh-keys", "--ssh-key-value", "/root/.kube-old/config.pub"]],
    [["/^bicep /"], ["bicep", "build", "--file", "main.bicep", "--outfile", CONFIG]],
    // Red team 9 F2: a name-shape candidate on a writing verb, a module Debian's az cannot load.
    [["network"], ["network", "private-dns", "zone", "export", "-g", "g", "-n", "z", "-f", BASHRC]],
    [["network"], ["network", "dns", "zone", "export", "-g", "g", "-n", "z", `--file-name=${BASHRC}`]],
    [["network"], ["network", "express-route", "port", "generate-loa", "-g", "g", "-n", "p", "--customer-name", "c", "-f", BASHRC]],
    [["dls"], ["dls", "fs", "download", "--account", "a", "--source-path", "/x", "--destination-path", CONFIG, "--overwrite"]],
    [["container"], ["container", "export", "-g", "g", "-n", "n", "-f", BASHRC]],
    [["bicep"], ["bicep", "decompile", "--file", "/root/.azure-old/config.json", "--force"]],
    [["appconfig"], ["appconfig", "kv", "export", "-n", "s", "-d", "file", "--path", BASHRC, "--format", "json"]],
    [["vm"], ["vm", "create", "-g", "g", "-n", "v", "--image", "i", "--generate-ssh-keys", "--ssh-key-values", "/root/.kube-old/config.pub"]],
  ])("rule %j leaves %j unresolved, quoting no path", (accept, argv) => {
    const decision = decide(az, accept, argv);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain("can write a local file");
    expect(decision.reason).not.toMatch(/\.azure|\.kube|bashrc/);
  });

  it("a rule naming the command path accepts it; the same command without the option stays with the broad rule", () => {
    const download = ["storage", "blob", "download", "-c", "c", "-n", "b", "-f", CONFIG];
    expect(decide(az, ["storage blob download"], download).result).toBe("accept");
    // Without -f the blob goes to stdout: nothing is written.
    expect(decide(az, ["storage"], ["storage", "blob", "download", "-c", "c", "-n", "b"]).result).toBe("accept");
    expect(decide(az, ["storage"], ["storage", "blob", "list", "-c", "c"]).result).toBe("accept");
  });

  it("calls whose candidate arguments were reviewed as reads stay with the broad rule", () => {
    expect(decide(az, ["storage"], ["storage", "fs", "file", "download", "-f", "fs", "--path", "/x/y", "-d", "out"]).result).toBe("unresolved");
    expect(decide(az, ["storage"], ["storage", "fs", "file", "download", "-f", "fs", "--path", "/x/y"]).result).toBe("accept");
    expect(decide(az, ["aks"], ["aks", "get-versions", "--location", "westus"]).result).toBe("accept");
    expect(decide(az, ["vm"], ["vm", "user", "update", "-g", "g", "-n", "v", "-u", "u", "--ssh-key-value", "/root/.ssh/k.pub"]).result).toBe("accept");
  });
});

describe("the generated table against its review", () => {
  const reviewed = JSON.parse(readFileSync(at("scripts/providers/az-file-writes-reviewed.json"), "utf8")) as {
    rows: { command: string; option: string; verdict: string }[];
    extra: string[];
  };
  /** Lines of the committed listing: `command words --long [--alias] [-s]  # verdict`. */
  const listing = readFileSync(at("scripts/providers/az-file-writes.txt"), "utf8")
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [text = "", verdict = ""] = line.split("  # ");
      const words = text.split(" ");
      const first = words.findIndex((word) => word.startsWith("-"));
      const options = words.slice(first);
      return {
        text,
        verdict,
        command: words.slice(0, first).join(" "),
        longs: options.filter((w) => w.startsWith("--")),
        short: options.find((w) => !w.startsWith("--")),
      };
    });

  it("every listed candidate has the verdict of its first review row (extra lines: write)", () => {
    expect(listing.length).toBeGreaterThan(100);
    for (const line of listing) {
      const row = reviewed.rows.find((r) => new RegExp(r.command).test(line.command) && line.longs.some((option) => new RegExp(r.option).test(option)));
      expect(reviewed.extra.includes(line.text) ? "write" : row?.verdict, line.text).toBe(line.verdict);
    }
  });

  it("provider.yaml's file_writes are exactly the listed writers, every long alias and short form included", () => {
    const rows = (bundledProviderConfig("az").argv?.file_writes ?? [])
      .filter((row) => row.default_path === undefined)
      .map((row) => `${row.command.join(" ")} ${row.option ?? ""} ${row.short ?? ""}`.trim());
    const writers = listing
      .filter((line) => line.verdict === "write")
      .flatMap((line) => line.longs.map((option, i) => `${line.command} ${option}${i === 0 && line.short ? ` ${line.short}` : ""}`));
    expect(rows.sort()).toEqual(writers.sort());
    expect(writers).toContain("network dns zone export --file-name -f");
    expect(writers).toContain("dls fs download --destination-path");
  });
});

/** The committed default-place listing's writes: `command words [--option] -> path  # writes`. */
const defaultWrites = readFileSync(at("scripts/providers/az-default-writes.txt"), "utf8")
  .split("\n")
  .filter((line) => line.endsWith("  # writes"))
  .map((line) => {
    const [left = "", path = ""] = line.split("  # ")[0]!.split(" -> ");
    const words = left.split(" ");
    return { command: words.filter((w) => !w.startsWith("--")), option: words.find((w) => w.startsWith("--")), path };
  });

describe("az calls that write a local file at a default place need a rule naming the command", () => {
  it.each([
    [["vm"], ["vm", "create", "-g", "g", "-n", "v", "--image", "Ubuntu2204", "--generate-ssh-keys"], "~/.ssh/id_rsa"],
    [["vm"], ["vm", "create", "-g", "g", "-n", "v", "--image", "Ubuntu2204", "--generate-ssh"], "~/.ssh/id_rsa"],
    [["/.*/"], ["aks", "create", "-g", "g", "-n", "c", "--generate-ssh-keys"], "~/.ssh/id_rsa"],
    [["webapp"], ["webapp", "up", "-n", "app", "--sku", "F1"], ".azure/config"],
    [["webapp"], ["webapp", "log", "download", "-g", "g", "-n", "app"], "webapp_logs.zip"],
    [["mysql"], ["mysql", "server-logs", "download", "-g", "g", "-s", "s", "-n", "mysql-slow.log"], "the working directory"],
    [["bot"], ["bot", "download", "-g", "g", "-n", "b"], "the working directory"],
  ])("rule %j leaves %j unresolved, naming the default place", (accept, argv, place) => {
    const decision = decide(az, accept, argv);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain(`writes a local file at its default place, ${place}`);
  });

  it("the same broad rules accept the commands' calls that write nothing there, and a rule naming the command accepts the write", () => {
    expect(decide(az, ["vm"], ["vm", "create", "-g", "g", "-n", "v", "--image", "Ubuntu2204", "--admin-password", "p"]).result).toBe("accept");
    expect(decide(az, ["webapp"], ["webapp", "list"]).result).toBe("accept");
    expect(decide(az, ["vm create"], ["vm", "create", "-g", "g", "-n", "v", "--image", "Ubuntu2204", "--generate-ssh-keys"]).result).toBe("accept");
    expect(decide(az, ["webapp up"], ["webapp", "up", "-n", "app"]).result).toBe("accept");
  });

  it("provider.yaml's default_path rows are exactly the listing's, and each holds its command under a broad rule", () => {
    const rows = (bundledProviderConfig("az").argv?.file_writes ?? []).filter((row) => row.default_path !== undefined);
    const text = (row: { command: readonly string[]; option?: string | undefined; path?: string; default_path?: string }) =>
      `${row.command.join(" ")} ${row.option ?? ""} -> ${row.path ?? row.default_path ?? ""}`;
    expect(rows.map(text).sort()).toEqual(defaultWrites.map(text).sort());
    expect(defaultWrites.length).toBeGreaterThan(10);
    for (const write of defaultWrites) {
      const argv = [...write.command, "-g", "g", ...(write.option === undefined ? [] : [write.option])];
      const decision = decide(az, [write.command[0]!], argv);
      // A locked command (aks get-credentials, acr login) is refused before any hold.
      if (decision.result === "deny") expect(decision.source, argv.join(" ")).toBe("locked-command");
      else expect(decision.reason, argv.join(" ")).toContain(`at its default place, ${write.path}`);
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
