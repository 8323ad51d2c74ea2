/**
 * az calls that upload a local file or directory (scripts/providers/az_uploads.py,
 * reviewed in az-uploads-reviewed.json, joined to `argv.file_reads`) are held like
 * every file read: `acr build -r R ~` sends the home directory as a build context,
 * `storage blob upload-batch -s DIR` copies a directory to a container, `webapp up`
 * zips the working directory. A broad rule does not accept them; a rule naming the
 * command does.
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

const UPLOADS: readonly (readonly string[])[] = [
  ["acr", "build", "-r", "r", "-t", "img:1", "/srv/project"],
  ["acr", "run", "-r", "r", "--cmd", "echo", "/srv/project"],
  ["acr", "pack", "build", "-r", "r", "-t", "img:1", "--builder", "b", "/srv/project"],
  ["storage", "blob", "upload-batch", "-d", "c", "--account-name", "a", "-s", "/srv/data"],
  ["storage", "blob", "upload-batch", "-d", "c", "--account-name", "a", "--sou", "/srv/data"],
  ["storage", "blob", "sync", "-c", "c", "--account-name", "a", "-s", "/srv/data"],
  ["storage", "file", "upload-batch", "-d", "share", "--account-name", "a", "--source=/srv/data"],
  ["storage", "fs", "directory", "upload", "-f", "fs", "--account-name", "a", "-s", "/srv/data", "-d", "dir"],
  ["webapp", "up", "-n", "app"],
  ["webapp", "deploy", "-g", "g", "-n", "app", "--src-path", "/srv/app.zip"],
  ["webapp", "deployment", "source", "config-zip", "-g", "g", "-n", "app", "--src", "/srv/app.zip"],
  ["functionapp", "deployment", "source", "config-zip", "-g", "g", "-n", "app", "--src", "/srv/app.zip"],
  ["artifacts", "universal", "publish", "--feed", "f", "--name", "n", "--version", "1.0.0", "--path", "/srv/pkg"],
  ["bot", "publish", "-g", "g", "-n", "b"],
  ["aks", "command", "invoke", "-g", "g", "-n", "c", "--command", "kubectl apply -f x.yaml", "--file", "."],
];

describe("az uploads of a local file or directory need a rule naming the command", () => {
  it.each(UPLOADS.map((argv) => [argv.join(" "), argv] as const))("a rule of its first word leaves %s unresolved", (_, argv) => {
    const decision = decide([argv[0]!], argv);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toMatch(/reads a local file or directory|writes a local file at its default place/u);
  });

  it.each(UPLOADS.map((argv) => [argv.join(" "), argv] as const))("a rule naming the command accepts %s", (_, argv) => {
    const words = argv.filter((token) => /^[a-z][a-z-]*$/u.test(token));
    const path = bundledProviderConfig("az")
      .argv!.file_reads!.map((row) => row.command)
      .concat((bundledProviderConfig("az").argv!.file_writes ?? []).map((row) => row.command))
      .filter((command) => command.every((word, i) => words[i] === word))
      .sort((a, b) => b.length - a.length)[0]!;
    expect(decide([path.join(" ")], argv).result).toBe("accept");
  });

  it("storage copy's `--` tail (options handed to AzCopy as they are) is refused whatever the rules; without one a remote copy stays with them", () => {
    const remote = [
      "storage",
      "copy",
      "--source-account-name",
      "a",
      "--source-container",
      "c",
      "--destination-account-name",
      "b",
      "--destination-container",
      "c",
    ];
    expect(decide(["/.*/"], [...remote, "--", "--list-of-files=/srv/list.txt"])).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decide(["storage copy"], [...remote, "--", "--recursive"])).toMatchObject({ result: "deny", source: "locked-option" });
    expect(decide(["storage"], remote).result).toBe("accept");
  });

  it("the same broad rules still accept calls that upload nothing", () => {
    expect(decide(["storage"], ["storage", "blob", "list", "-c", "c", "--account-name", "a"]).result).toBe("accept");
    expect(decide(["webapp"], ["webapp", "list"]).result).toBe("accept");
    expect(decide(["acr"], ["acr", "repository", "list", "-n", "r"]).result).toBe("accept");
  });

  it("every `reads` line of the listing is a file_reads row of the provider", () => {
    const rows = new Set(
      (bundledProviderConfig("az").argv?.file_reads ?? []).map((row) =>
        [...row.command, row.operand === undefined ? row.option : `OPERAND:${row.operand}`, row.short].filter(Boolean).join(" "),
      ),
    );
    const reads = readFileSync(at("scripts/providers/az-uploads.txt"), "utf8")
      .split("\n")
      .filter((line) => line.endsWith("  # reads"))
      .map((line) => line.split("  # ")[0]!);
    expect(reads.length).toBeGreaterThan(30);
    for (const line of reads) expect(rows.has(line), line).toBe(true);
  });
});
