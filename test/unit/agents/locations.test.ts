import { describe, expect, test } from "vitest";
import { CLIENTS, clientById } from "../../../src/agents/clients.js";
import type { ConfigScope, Place } from "../../../src/agents/place.js";

const MAC: Place = { platform: "darwin", env: {}, home: "/Users/ann", cwd: "/Users/ann/proj" };
const LINUX: Place = { platform: "linux", env: {}, home: "/home/ann", cwd: "/home/ann/proj" };
const WINDOWS: Place = { platform: "win32", env: { APPDATA: "C:\\Users\\ann\\AppData\\Roaming" }, home: "C:\\Users\\ann", cwd: "C:\\work\\proj" };

function fileOf(id: string, scope: ConfigScope, place: Place): string {
  const client = clientById(id);
  if (client === undefined) throw new Error(`no client ${id}`);
  return client.configFile(scope, place);
}

/** [client, scope, macOS, Linux, Windows] */
const EXPECTED: readonly [string, ConfigScope, string, string, string][] = [
  [
    "claude-desktop",
    "user",
    "/Users/ann/Library/Application Support/Claude/claude_desktop_config.json",
    "/home/ann/.config/Claude/claude_desktop_config.json",
    "C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
  ],
  ["claude-code", "user", "/Users/ann/.claude.json", "/home/ann/.claude.json", "C:\\Users\\ann\\.claude.json"],
  ["claude-code", "project", "/Users/ann/proj/.mcp.json", "/home/ann/proj/.mcp.json", "C:\\work\\proj\\.mcp.json"],
  ["codex", "user", "/Users/ann/.codex/config.toml", "/home/ann/.codex/config.toml", "C:\\Users\\ann\\.codex\\config.toml"],
  ["codex", "project", "/Users/ann/proj/.codex/config.toml", "/home/ann/proj/.codex/config.toml", "C:\\work\\proj\\.codex\\config.toml"],
  ["gemini-cli", "user", "/Users/ann/.gemini/settings.json", "/home/ann/.gemini/settings.json", "C:\\Users\\ann\\.gemini\\settings.json"],
  ["gemini-cli", "project", "/Users/ann/proj/.gemini/settings.json", "/home/ann/proj/.gemini/settings.json", "C:\\work\\proj\\.gemini\\settings.json"],
  ["cursor", "user", "/Users/ann/.cursor/mcp.json", "/home/ann/.cursor/mcp.json", "C:\\Users\\ann\\.cursor\\mcp.json"],
  ["cursor", "project", "/Users/ann/proj/.cursor/mcp.json", "/home/ann/proj/.cursor/mcp.json", "C:\\work\\proj\\.cursor\\mcp.json"],
  [
    "vscode",
    "user",
    "/Users/ann/Library/Application Support/Code/User/mcp.json",
    "/home/ann/.config/Code/User/mcp.json",
    "C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json",
  ],
  ["vscode", "project", "/Users/ann/proj/.vscode/mcp.json", "/home/ann/proj/.vscode/mcp.json", "C:\\work\\proj\\.vscode\\mcp.json"],
  ["copilot-cli", "user", "/Users/ann/.copilot/mcp-config.json", "/home/ann/.copilot/mcp-config.json", "C:\\Users\\ann\\.copilot\\mcp-config.json"],
  [
    "opencode",
    "user",
    "/Users/ann/.config/opencode/opencode.json",
    "/home/ann/.config/opencode/opencode.json",
    "C:\\Users\\ann\\.config\\opencode\\opencode.json",
  ],
  ["opencode", "project", "/Users/ann/proj/opencode.json", "/home/ann/proj/opencode.json", "C:\\work\\proj\\opencode.json"],
  [
    "antigravity",
    "user",
    "/Users/ann/.gemini/antigravity/mcp_config.json",
    "/home/ann/.gemini/antigravity/mcp_config.json",
    "C:\\Users\\ann\\.gemini\\antigravity\\mcp_config.json",
  ],
];

describe("client configuration locations", () => {
  test.each(EXPECTED)("%s (%s scope) on macOS, Linux and Windows", (id, scope, mac, linux, windows) => {
    expect(fileOf(id, scope, MAC)).toBe(mac);
    expect(fileOf(id, scope, LINUX)).toBe(linux);
    expect(fileOf(id, scope, WINDOWS)).toBe(windows);
  });

  test("every client and scope has an expected location in the table above", () => {
    const covered = new Set(EXPECTED.map(([id, scope]) => `${id}/${scope}`));
    expect(CLIENTS.flatMap((client) => client.scopes.map((scope) => `${client.id}/${scope}`)).sort()).toEqual([...covered].sort());
  });

  test("the clients' own environment variables move their files", () => {
    const env = { CLAUDE_CONFIG_DIR: "/cfg/claude", CODEX_HOME: "/cfg/codex", COPILOT_HOME: "/cfg/copilot", XDG_CONFIG_HOME: "/xdg" };
    const moved = { ...LINUX, env };
    expect(fileOf("claude-code", "user", moved)).toBe("/cfg/claude/.claude.json");
    expect(fileOf("codex", "user", moved)).toBe("/cfg/codex/config.toml");
    expect(fileOf("copilot-cli", "user", moved)).toBe("/cfg/copilot/mcp-config.json");
    expect(fileOf("opencode", "user", moved)).toBe("/xdg/opencode/opencode.json");
    expect(fileOf("vscode", "user", moved)).toBe("/xdg/Code/User/mcp.json");
    expect(fileOf("claude-desktop", "user", moved)).toBe("/xdg/Claude/claude_desktop_config.json");
  });

  test("a relative override is ignored, and Windows without APPDATA falls back to the roaming folder", () => {
    expect(fileOf("codex", "user", { ...LINUX, env: { CODEX_HOME: "relative/codex" } })).toBe("/home/ann/.codex/config.toml");
    expect(fileOf("vscode", "user", { ...WINDOWS, env: {} })).toBe("C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp.json");
  });
});
