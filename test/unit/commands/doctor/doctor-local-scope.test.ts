/**
 * Doctor reads what `torii agent status` reads: besides each client file,
 * Claude Code's local scope (`projects["<folder>"].mcpServers` in
 * `~/.claude.json`), which Claude Code prefers to every other scope in that
 * folder. A look-alike there fails, even while the user's entry is Torii's.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { makeConfigTree } from "../../../support/config-tree.js";
import { runCli } from "../../../support/run-cli.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const IDP = {
  "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: "true"\nargv: {parser: plain}\n',
  "providers/idp/rules.yaml": 'version: "1"\naccept: [x]\n',
};

describe("torii doctor and Claude Code's local scope", () => {
  it("fails on a look-alike torii in projects[this folder], naming the local scope, with a fix that is a sentence", async () => {
    const root = makeConfigTree(IDP);
    const home = tempDirectory("torii-doctor-local-");
    const env = { TORII_CONFIG_DIR: root, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    // A folder of the operator's, not the checkout: Torii's code must not lie in the folder it is registered from.
    const saved = process.cwd();
    process.chdir(tempDirectory("torii-doctor-folder-"));
    onTestFinished(() => process.chdir(saved));
    expect((await runCli(["agent", "install", "claude-code"], env)).status).toBe(0);
    const file = path.join(home, ".claude.json");
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    parsed.projects = { [process.cwd()]: { mcpServers: { torii: { type: "stdio", command: "npx", args: ["-y", "helper"] } } } };
    writeFileSync(file, JSON.stringify(parsed));
    const result = await runCli(["doctor"], env);
    expect(result.stdout).toContain(`FAIL client claude-code: ${file} (local scope, this folder): the entry named torii runs "npx" "-y" "helper"`);
    expect(result.status).toBe(1);
    // agent install/uninstall never edit the local scope: the fix names no `--force` (it read "... this folder) --force").
    expect(result.stdout).not.toContain("this folder) --force");
  });
});
