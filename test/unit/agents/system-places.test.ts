/**
 * The machine-wide files and parent folders status reads, as pure functions of
 * the place (every OS on any machine), and Claude Code's managed-mcp.json,
 * which when present is the only file Claude Code starts servers from: no
 * torii there means the user's registration never runs (`blocked`).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { clientById } from "../../../src/agents/clients.js";
import type { ClientAdapter } from "../../../src/agents/adapter.js";
import type { Place } from "../../../src/agents/place.js";
import { projectFolders } from "../../../src/agents/project-folders.js";
import { otherEntrySites, shadowingStatus } from "../../../src/agents/shadowing.js";
import { claudeManagedMcp, geminiSystemDefaults, geminiSystemSettings } from "../../../src/agents/system-places.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const MAC: Place = { platform: "darwin", env: {}, home: "/Users/ann", cwd: "/Users/ann/work/proj" };
const LINUX: Place = { platform: "linux", env: {}, home: "/home/ann", cwd: "/home/ann/work/proj" };
const WINDOWS: Place = { platform: "win32", env: { APPDATA: "C:\\Users\\ann\\AppData\\Roaming" }, home: "C:\\Users\\ann", cwd: "C:\\work\\proj" };

const client = (id: string): ClientAdapter => clientById(id) as ClientAdapter;

describe("machine-wide files", () => {
  test("Gemini CLI's system settings and defaults per OS, and their environment overrides", () => {
    expect([MAC, LINUX, WINDOWS].map(geminiSystemSettings)).toEqual([
      "/Library/Application Support/GeminiCli/settings.json",
      "/etc/gemini-cli/settings.json",
      "C:\\ProgramData\\gemini-cli\\settings.json",
    ]);
    expect(geminiSystemDefaults(LINUX)).toBe("/etc/gemini-cli/system-defaults.json");
    const moved = { ...LINUX, env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: "/opt/gem/settings.json" } };
    expect(geminiSystemSettings(moved)).toBe("/opt/gem/settings.json");
    expect(geminiSystemDefaults(moved)).toBe("/opt/gem/system-defaults.json");
    expect(geminiSystemDefaults({ ...LINUX, env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: "/opt/d.json" } })).toBe("/opt/d.json");
  });

  test("Claude Code's managed-mcp.json per OS", () => {
    expect([MAC, LINUX, WINDOWS].map(claudeManagedMcp)).toEqual([
      "/Library/Application Support/ClaudeCode/managed-mcp.json",
      "/etc/claude-code/managed-mcp.json",
      "C:\\Program Files\\ClaudeCode\\managed-mcp.json",
    ]);
  });

  test("status reads them: Gemini CLI's system settings override the user's, Claude Code's managed file is exclusive", () => {
    const none = (): readonly string[] => [];
    const gemini = otherEntrySites(client("gemini-cli"), "user", LINUX, none);
    expect(gemini.find((site) => site.file === "/etc/gemini-cli/settings.json")).toMatchObject({ overrides: true, system: true });
    const claude = otherEntrySites(client("claude-code"), "project", LINUX, none);
    expect(claude.find((site) => site.file === "/etc/claude-code/managed-mcp.json")).toMatchObject({ exclusive: true, system: true });
    const vscode = otherEntrySites(client("vscode"), "user", WINDOWS, none);
    expect(vscode.map((site) => site.file)).toContain("C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\settings.json");
  });
});

describe("parent folders", () => {
  const repositoryAt = (root: string) => (folder: string) => folder === root;

  test("each client's search, nearest first", () => {
    expect(projectFolders(LINUX)("cwd")).toEqual(["/home/ann/work/proj"]);
    expect(projectFolders(LINUX)("root")).toEqual(["/home/ann/work/proj", "/home/ann/work", "/home/ann", "/home", "/"]);
    expect(projectFolders(LINUX, repositoryAt("/home/ann/work"))("git-root-or-cwd")).toEqual(["/home/ann/work/proj", "/home/ann/work"]);
    expect(projectFolders(LINUX, () => false)("git-root-or-cwd")).toEqual(["/home/ann/work/proj"]);
    expect(projectFolders(LINUX, () => false)("git-root-or-root")).toHaveLength(5);
    expect(projectFolders(WINDOWS)("root")).toEqual(["C:\\work\\proj", "C:\\work", "C:\\"]);
  });

  test("one walk serves every search: each folder is asked once whether it is a repository's root", () => {
    const asked: string[] = [];
    const search = projectFolders(LINUX, (folder) => {
      asked.push(folder);
      return folder === "/home/ann";
    });
    // opencode's four project files (each up to the repository root), then Codex's.
    for (let file = 0; file < 4; file += 1) expect(search("git-root-or-root")).toEqual(["/home/ann/work/proj", "/home/ann/work", "/home/ann"]);
    expect(search("git-root-or-cwd")).toEqual(["/home/ann/work/proj", "/home/ann/work", "/home/ann"]);
    expect(asked).toEqual(["/home/ann/work/proj", "/home/ann/work", "/home/ann"]);
  });

  test("a parent's project file outranks the user's entry, but not the working directory's project registration", () => {
    const folders = (): readonly string[] => ["/home/ann/work/proj", "/home/ann/work"];
    const parent = (scope: "user" | "project") =>
      otherEntrySites(client("claude-code"), scope, LINUX, folders).find((site) => site.file === "/home/ann/work/.mcp.json");
    expect(parent("user")?.overrides).toBe(true);
    expect(parent("project")?.overrides).toBe(false);
  });
});

describe("Claude Code's managed-mcp.json", () => {
  const launch = { node: process.execPath, cli: "/opt/torii/dist/cli.js", configRoot: "/home/ann/.config/torii" };
  const claude = client("claude-code");

  test("absent: nothing; present without torii: blocked, naming the file; present with this Torii's entry: nothing", async () => {
    const folder = tempDirectory("torii-managed-");
    const file = path.join(folder, "managed-mcp.json");
    const sites = [{ file, entryPath: ["mcpServers", "torii"], label: "managed configuration", overrides: true, exclusive: true, system: true }];
    expect(await shadowingStatus(claude, sites, launch)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ mcpServers: { other: { command: "x" } } }));
    const status = await shadowingStatus(claude, sites, launch);
    expect(status?.state).toBe("blocked");
    expect(status?.reasons.join("\n")).toContain(file);
    writeFileSync(file, JSON.stringify({ mcpServers: { torii: claude.entry(launch) } }));
    expect(await shadowingStatus(claude, sites, launch)).toBeUndefined();
  });
});

describe("Codex's machine-wide files", () => {
  test("status reads /etc/codex/managed_config.toml (over every other file) and /etc/codex/config.toml (under the user's)", () => {
    const sites = otherEntrySites(client("codex"), "user", LINUX, () => []);
    expect(sites.find((site) => site.file === "/etc/codex/managed_config.toml")).toMatchObject({ overrides: true, system: true });
    expect(sites.find((site) => site.file === "/etc/codex/config.toml")).toMatchObject({ overrides: false, system: true });
    expect(sites.every((site) => site.entryPath.join(".") === "mcp_servers.torii")).toBe(true);
  });
});
