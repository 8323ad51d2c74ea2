/**
 * Machine-wide files a client reads before or over the user's own: an
 * administrator's (or anyone who can write them: root) `torii` there is
 * started instead of the operator's entry, so `torii agent status` reads them
 * too (shadowing.ts). Pure functions of the place, like every location.
 *
 * Sources: Gemini CLI's settings loader (`getSystemSettingsPath`,
 * `getSystemDefaultsPath`: the env overrides, then one path per OS; system
 * settings override user and workspace, system defaults lie under both);
 * Claude Code's managed MCP documentation (code.claude.com/docs/en/managed-mcp:
 * a `managed-mcp.json` takes exclusive control of the MCP servers); Codex's
 * config loader (codex-rs `config_loader`: on Unix a system layer
 * `/etc/codex/config.toml` under the user's, and `/etc/codex/managed_config.toml`
 * over every other layer).
 */
import { absoluteEnv, pathsOf, type Place } from "./place.js";

/** Gemini CLI's system settings file (`GEMINI_CLI_SYSTEM_SETTINGS_PATH` when set): it overrides every other settings file. */
export function geminiSystemSettings(place: Place): string {
  const override = absoluteEnv(place, "GEMINI_CLI_SYSTEM_SETTINGS_PATH");
  if (override !== undefined) return override;
  if (place.platform === "darwin") return "/Library/Application Support/GeminiCli/settings.json";
  if (place.platform === "win32") return "C:\\ProgramData\\gemini-cli\\settings.json";
  return "/etc/gemini-cli/settings.json";
}

/** Gemini CLI's system defaults (`GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, else beside the system settings): under every other file. */
export function geminiSystemDefaults(place: Place): string {
  return (
    absoluteEnv(place, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH") ?? pathsOf(place).join(pathsOf(place).dirname(geminiSystemSettings(place)), "system-defaults.json")
  );
}

/** Claude Code's managed MCP file: when it exists, Claude Code starts only the servers it lists. */
export function claudeManagedMcp(place: Place): string {
  if (place.platform === "darwin") return "/Library/Application Support/ClaudeCode/managed-mcp.json";
  if (place.platform === "win32") return "C:\\Program Files\\ClaudeCode\\managed-mcp.json";
  return "/etc/claude-code/managed-mcp.json";
}

/** Claude Code's managed settings (its `deniedMcpServers`/`allowedMcpServers` bind every user: server-policy.ts). */
export function claudeManagedSettings(place: Place): string {
  return pathsOf(place).join(pathsOf(place).dirname(claudeManagedMcp(place)), "managed-settings.json");
}

/**
 * Codex's machine-wide layers on Unix: `system`, under the user's and the projects' files, and `managed`, over them
 * all. None is known on Windows (Codex keeps its managed file in CODEX_HOME there, which the user scope already is).
 */
export function codexSystemFiles(place: Place): { readonly system: string; readonly managed: string } | undefined {
  return place.platform === "win32" ? undefined : { system: "/etc/codex/config.toml", managed: "/etc/codex/managed_config.toml" };
}
