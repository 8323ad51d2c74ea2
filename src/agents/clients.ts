/**
 * The nine clients `torii agent` knows, in one table: each client's file per
 * scope and OS, its key, its entry shape and its approval behaviour. The
 * command, `docs/agents.md`'s facts and the README's client list
 * (scripts/agents/readme-clients.mjs, checked by a test) all come from here.
 *
 * Sources for each location and format: the clients' own documentation and
 * source (see docs/agents.md); none of Torii's entries sets a client's
 * "trust all" switch.
 */
import type { ClientAdapter, EntrySite, JsonEdit, ToriiLaunch } from "./adapter.js";
import { SERVER_NAME } from "./adapter.js";
import { guardHookInstaller } from "./guard/hook-installer.js";
import { absoluteEnv, desktopAppData, pathsOf, xdgConfigHome, type ConfigScope, type Place } from "./place.js";
import { claudeManagedMcp, codexSystemFiles, geminiSystemDefaults, geminiSystemSettings } from "./system-places.js";

/** `command` + `args` + `env`: the shape most clients share (Claude Desktop's). */
function stdioEntry(launch: ToriiLaunch): Record<string, unknown> {
  return { command: launch.node, args: [launch.cli, "mcp"], env: { TORII_CONFIG_DIR: launch.configRoot } };
}

/** A file under the home directory for the user scope, under the project folder for the project scope. */
function homeOrProject(userParts: readonly string[], projectParts: readonly string[]): (scope: ConfigScope, place: Place) => string {
  return (scope, place) => (scope === "user" ? pathsOf(place).join(place.home, ...userParts) : pathsOf(place).join(place.cwd, ...projectParts));
}

/** opencode names an MCP tool `<server>_<tool>`; this rule makes it ask before each Torii tool runs. */
const OPENCODE_PERMISSION_KEY = `${SERVER_NAME}_*`;

/** What Torii writes for its tools in opencode's `permission`. */
const OPENCODE_PERMISSION = "ask";

function opencodeOwnedEdits(current: unknown, action: "install" | "uninstall"): readonly JsonEdit[] {
  const permission = (current as { permission?: unknown } | undefined)?.permission;
  // A string permission ("allow"/"ask") applies to every tool; Torii does not rewrite the operator's choice.
  const isObject = typeof permission === "object" && permission !== null && !Array.isArray(permission);
  const rule = isObject && Object.hasOwn(permission, OPENCODE_PERMISSION_KEY) ? (permission as Record<string, unknown>)[OPENCODE_PERMISSION_KEY] : undefined;
  const path = ["permission", OPENCODE_PERMISSION_KEY];
  // A stricter rule for Torii's tools that is already there ("deny", or a per-tool object) is the operator's choice
  // too: install does not replace it, and uninstall removes only the "ask" Torii writes. "allow" is not kept: it
  // turns off the per-call question Torii registers, and an agent can write it as easily as the operator.
  if (action === "install") {
    return permission === undefined || (isObject && (rule === undefined || rule === "allow")) ? [{ path, value: OPENCODE_PERMISSION }] : [];
  }
  return rule === OPENCODE_PERMISSION ? [{ path, value: undefined }] : [];
}

const entryPath = ["mcpServers", SERVER_NAME];

/** An opencode file that may hold Torii's entry and overrides the user's own (none when `file` is undefined). */
function optionalSite(file: string | undefined, label: string): EntrySite[] {
  return file === undefined ? [] : [{ file, entryPath: ["mcp", SERVER_NAME], label, overrides: true }];
}

/** Where VS Code's settings.json holds a server: `"mcp": { "servers": { … } }`. */
const VSCODE_SETTINGS_ENTRY = ["mcp", "servers", SERVER_NAME];

/** Every client `torii agent` supports, in the order the README lists them. */
export const CLIENTS: readonly ClientAdapter[] = [
  {
    id: "claude-desktop",
    title: "Claude Desktop",
    format: "json",
    scopes: ["user"],
    configFile: (_scope, place) => pathsOf(place).join(desktopAppData(place), "Claude", "claude_desktop_config.json"),
    entryPath,
    entry: stdioEntry,
    approval: "asks before each tool call (allow once / always, per tool); nothing to set. Restart the app after installing.",
  },
  {
    id: "claude-code",
    title: "Claude Code",
    format: "json",
    scopes: ["user", "project"],
    configFile: (scope, place) =>
      scope === "user"
        ? pathsOf(place).join(absoluteEnv(place, "CLAUDE_CONFIG_DIR") ?? place.home, ".claude.json")
        : pathsOf(place).join(place.cwd, ".mcp.json"),
    entryPath,
    entry: (launch) => ({ type: "stdio", ...stdioEntry(launch) }),
    // `claude mcp add`'s default scope: per folder, inside the user file, and first in Claude Code's precedence.
    localEntries: (place) => [
      {
        file: pathsOf(place).join(absoluteEnv(place, "CLAUDE_CONFIG_DIR") ?? place.home, ".claude.json"),
        entryPath: ["projects", place.cwd, "mcpServers", SERVER_NAME],
        label: "local scope, this folder",
        overrides: true,
      },
    ],
    // When the administrator's managed-mcp.json exists, Claude Code starts only what it lists.
    moreEntries: (place) => [{ file: claudeManagedMcp(place), entryPath, label: "managed configuration", overrides: true, exclusive: true, system: true }],
    // Claude Code reads `.mcp.json` in the working directory and in every folder above it.
    projectFiles: [{ parts: [".mcp.json"], entryPath, search: "root" }],
    installHook: guardHookInstaller("claude-code", (scope, place) =>
      scope === "user"
        ? pathsOf(place).join(absoluteEnv(place, "CLAUDE_CONFIG_DIR") ?? pathsOf(place).join(place.home, ".claude"), "settings.json")
        : pathsOf(place).join(place.cwd, ".claude", "settings.json"),
    ),
    approval:
      "asks before each MCP tool call unless `permissions.allow` in its settings lists `mcp__torii…`; Torii adds no allow rule. A project `.mcp.json` is approved once per project.",
  },
  {
    id: "codex",
    title: "Codex CLI",
    format: "toml",
    scopes: ["user", "project"],
    configFile: (scope, place) =>
      scope === "user"
        ? pathsOf(place).join(absoluteEnv(place, "CODEX_HOME") ?? pathsOf(place).join(place.home, ".codex"), "config.toml")
        : pathsOf(place).join(place.cwd, ".codex", "config.toml"),
    entryPath: ["mcp_servers", SERVER_NAME],
    entry: (launch) => ({ ...stdioEntry(launch), default_tools_approval_mode: "prompt", tool_timeout_sec: 300 }),
    // Codex's machine-wide layers: the managed file overrides everything, the system file lies under the user's.
    moreEntries: (place: Place): readonly EntrySite[] => {
      const files = codexSystemFiles(place);
      if (files === undefined) return [];
      const entryPath = ["mcp_servers", SERVER_NAME];
      return [
        { file: files.managed, entryPath, label: "managed configuration", overrides: true, system: true },
        { file: files.system, entryPath, label: "system configuration", overrides: false, system: true },
      ];
    },
    // Codex layers each `.codex/config.toml` from the repository root down to the working directory.
    projectFiles: [{ parts: [".codex", "config.toml"], entryPath: ["mcp_servers", SERVER_NAME], search: "git-root-or-cwd" }],
    installHook: guardHookInstaller("codex", (scope, place) =>
      scope === "user"
        ? pathsOf(place).join(absoluteEnv(place, "CODEX_HOME") ?? pathsOf(place).join(place.home, ".codex"), "hooks.json")
        : pathsOf(place).join(place.cwd, ".codex", "hooks.json"),
    ),
    approval:
      'has per-server approval modes; Torii sets `default_tools_approval_mode = "prompt"` so every Torii tool call is confirmed. A project `.codex/config.toml` is read only in a trusted project.',
  },
  {
    id: "gemini-cli",
    title: "Gemini CLI",
    format: "json",
    scopes: ["user", "project"],
    configFile: homeOrProject([".gemini", "settings.json"], [".gemini", "settings.json"]),
    entryPath,
    entry: (launch) => ({ ...stdioEntry(launch), trust: false }),
    // System settings override the user's and the project's; system defaults lie under both.
    moreEntries: (place) => [
      { file: geminiSystemSettings(place), entryPath, label: "system settings", overrides: true, system: true },
      { file: geminiSystemDefaults(place), entryPath, label: "system defaults", overrides: false, system: true },
    ],
    installHook: guardHookInstaller("gemini-cli", homeOrProject([".gemini", "settings.json"], [".gemini", "settings.json"])),
    approval: "confirms each MCP tool call unless the server has `trust: true`; Torii writes `trust: false`. Project settings apply only in a trusted folder.",
  },
  {
    id: "cursor",
    title: "Cursor",
    format: "json",
    scopes: ["user", "project"],
    configFile: homeOrProject([".cursor", "mcp.json"], [".cursor", "mcp.json"]),
    entryPath,
    entry: stdioEntry,
    installHook: guardHookInstaller("cursor", homeOrProject([".cursor", "hooks.json"], [".cursor", "hooks.json"])),
    approval: "asks before each tool call unless its auto-run mode is on (an app setting, not in mcp.json); Torii does not change it.",
  },
  {
    id: "vscode",
    title: "VS Code (Copilot Chat)",
    format: "json",
    scopes: ["user", "project"],
    configFile: (scope, place) =>
      scope === "user" ? pathsOf(place).join(desktopAppData(place), "Code", "User", "mcp.json") : pathsOf(place).join(place.cwd, ".vscode", "mcp.json"),
    entryPath: ["servers", SERVER_NAME],
    entry: (launch) => ({ type: "stdio", ...stdioEntry(launch) }),
    // VS Code also reads servers from the `mcp` block of its settings.json, the user's and the workspace's.
    moreEntries: (place) => [
      {
        file: pathsOf(place).join(desktopAppData(place), "Code", "User", "settings.json"),
        entryPath: VSCODE_SETTINGS_ENTRY,
        label: "user settings.json",
        overrides: false,
      },
    ],
    projectFiles: [
      { parts: [".vscode", "mcp.json"], entryPath: ["servers", SERVER_NAME], search: "cwd" },
      { parts: [".vscode", "settings.json"], entryPath: VSCODE_SETTINGS_ENTRY, search: "cwd" },
    ],
    approval: "confirms each tool call unless `chat.tools.autoApprove` (a settings.json switch Torii never sets) or a per-tool “always allow” was chosen.",
  },
  {
    id: "copilot-cli",
    title: "GitHub Copilot CLI",
    format: "json",
    scopes: ["user"],
    configFile: (_scope, place) => pathsOf(place).join(absoluteEnv(place, "COPILOT_HOME") ?? pathsOf(place).join(place.home, ".copilot"), "mcp-config.json"),
    entryPath,
    entry: (launch) => ({ type: "local", ...stdioEntry(launch), tools: ["*"] }),
    approval: "asks before each tool call unless started with `--allow-all-tools` or `--allow-tool`; `tools` only lists which tools are offered.",
  },
  {
    id: "opencode",
    title: "opencode",
    format: "json",
    scopes: ["user", "project"],
    configFile: (scope, place) =>
      scope === "user" ? pathsOf(place).join(xdgConfigHome(place), "opencode", "opencode.json") : pathsOf(place).join(place.cwd, "opencode.json"),
    alternateFile: (scope, place) =>
      scope === "user" ? pathsOf(place).join(xdgConfigHome(place), "opencode", "opencode.jsonc") : pathsOf(place).join(place.cwd, "opencode.jsonc"),
    entryPath: ["mcp", SERVER_NAME],
    entry: (launch) => ({ type: "local", command: [launch.node, launch.cli, "mcp"], enabled: true, environment: { TORII_CONFIG_DIR: launch.configRoot } }),
    // opencode merges config.json, opencode.json and opencode.jsonc (later wins) from its config folder, then every
    // opencode.json(c) (and .opencode/opencode.json(c)) from the worktree root down to the working directory, then
    // ~/.opencode/opencode.json(c) and OPENCODE_CONFIG_DIR's (its config loader's `directories`); OPENCODE_CONFIG's file
    // comes after the user's.
    moreEntries: (place) => [
      {
        file: pathsOf(place).join(xdgConfigHome(place), "opencode", "opencode.jsonc"),
        entryPath: ["mcp", SERVER_NAME],
        label: "user opencode.jsonc",
        overrides: true,
      },
      {
        file: pathsOf(place).join(xdgConfigHome(place), "opencode", "config.json"),
        entryPath: ["mcp", SERVER_NAME],
        label: "user config.json",
        overrides: false,
      },
      // The file OPENCODE_CONFIG names, over the user's files.
      ...optionalSite(absoluteEnv(place, "OPENCODE_CONFIG"), "OPENCODE_CONFIG"),
      // And the home folder's `.opencode` folder, wherever the working directory is, then OPENCODE_CONFIG_DIR: after every project file.
      ...[
        { folder: pathsOf(place).join(place.home, ".opencode"), label: "~/.opencode" },
        { folder: absoluteEnv(place, "OPENCODE_CONFIG_DIR"), label: "OPENCODE_CONFIG_DIR" },
      ].flatMap(({ folder, label }) =>
        ["opencode.jsonc", "opencode.json"].flatMap((name) =>
          optionalSite(folder === undefined ? undefined : pathsOf(place).join(folder, name), `${label} ${name}`),
        ),
      ),
    ],
    projectFiles: [["opencode.jsonc"], ["opencode.json"], [".opencode", "opencode.jsonc"], [".opencode", "opencode.json"]].map((parts) => ({
      parts,
      entryPath: ["mcp", SERVER_NAME],
      search: "git-root-or-root" as const,
    })),
    ownedEdits: opencodeOwnedEdits,
    approval: `runs tools without asking by default; Torii adds \`"permission": { "${OPENCODE_PERMISSION_KEY}": "ask" }\` (left alone when \`permission\` is a single string or already has a stricter \`${OPENCODE_PERMISSION_KEY}\` rule; an \`"allow"\` there is rewritten to \`"ask"\`).`,
  },
  {
    id: "antigravity",
    title: "Antigravity",
    format: "json",
    scopes: ["user"],
    configFile: (_scope, place) => pathsOf(place).join(place.home, ".gemini", "antigravity", "mcp_config.json"),
    entryPath,
    entry: stdioEntry,
    approval: "tool approval is an app setting (not in mcp_config.json); Torii does not change it.",
  },
];

/** The adapter for `id`, or undefined. */
export function clientById(id: string): ClientAdapter | undefined {
  return CLIENTS.find((client) => client.id === id);
}
