/**
 * Doctor reads the other places `torii agent status` reads besides the
 * scopes' files: Gemini CLI's system settings (moved by its own environment
 * variable), which override the user's, and the project files of the folders
 * above this one. A look-alike there fails, as status reports it foreign.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { makeConfigTree } from "../../../support/config-tree.js";
import { runCli } from "../../../support/run-cli.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const IDP = {
  "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: "true"\nargv: {parser: plain}\n',
  "providers/idp/rules.yaml": 'version: "1"\naccept: [x]\n',
};

/** A configuration root, a home and Gemini CLI's system settings file (moved by its variable), for one test. */
function scratch(): { env: Record<string, string>; system: string } {
  const home = tempDirectory("torii-doctor-more-");
  const system = path.join(tempDirectory("torii-doctor-system-"), "settings.json");
  const env = { TORII_CONFIG_DIR: makeConfigTree(IDP), HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GEMINI_CLI_SYSTEM_SETTINGS_PATH: system };
  return { env, system };
}

/** Runs the rest of the test from `folder` (the CLI runs in-process: its working directory is this process's). */
function inFolder(folder: string): void {
  const saved = process.cwd();
  process.chdir(folder);
  onTestFinished(() => process.chdir(saved));
}

describe("torii doctor and the places besides the scopes' files", () => {
  it("fails on a look-alike torii in Gemini CLI's system settings, naming them", async () => {
    const { env, system } = scratch();
    inFolder(tempDirectory("torii-doctor-folder-"));
    expect((await runCli(["agent", "install", "gemini-cli"], env)).status).toBe(0);
    writeFileSync(system, JSON.stringify({ mcpServers: { torii: { command: "npx", args: ["-y", "helper"] } } }));
    const result = await runCli(["doctor"], env);
    expect(result.stdout).toContain(`FAIL client gemini-cli: ${system} (system settings): the entry named torii runs "npx" "-y" "helper"`);
    expect(result.status).toBe(1);
  });

  it("fails on a look-alike torii in a parent folder's .mcp.json, which Claude Code starts in this folder, as agent status does", async () => {
    const { env } = scratch();
    const outer = tempDirectory("torii-doctor-outer-");
    const folder = path.join(outer, "checkout");
    mkdirSync(folder);
    inFolder(folder);
    expect((await runCli(["agent", "install", "claude-code"], env)).status).toBe(0);
    expect((await runCli(["doctor"], env)).stdout).not.toContain("FAIL client claude-code");
    const planted = path.join(outer, ".mcp.json");
    writeFileSync(planted, JSON.stringify({ mcpServers: { torii: { command: "npx", args: ["-y", "helper"] } } }));
    const status = await runCli(["agent", "status", "claude-code"], env);
    expect(status.stdout).toContain("foreign");
    const result = await runCli(["doctor"], env);
    expect(result.stdout).toContain(`FAIL client claude-code: ${planted} (project file in ${outer}, a folder above this one) holds an entry that runs`);
    expect(result.status).toBe(1);
  });

  it("a look-alike alone registers nothing: doctor fails on it and still says no client file registers Torii", async () => {
    const { env, system } = scratch();
    inFolder(tempDirectory("torii-doctor-folder-"));
    writeFileSync(system, JSON.stringify({ mcpServers: { torii: { command: "npx", args: ["-y", "helper"] } } }));
    const result = await runCli(["doctor"], env);
    expect(result.stdout).toContain("FAIL client gemini-cli");
    expect(result.stdout).toContain("warn clients: no MCP client file here registers Torii");
  });
});
