/**
 * The hook registration each client needs for `torii guard`, as pure data:
 * the agent registration command (`agent install <client> --guard`) merges it into the client's own file
 * (docs/guard.md lists the files). The command is one shell line of absolute
 * paths (clients run hooks through a shell, and GUI clients do not see the
 * user's PATH), ending in `guard --client <client> [--config <root>]`.
 */
import { shellQuote } from "../../policy/shell-quote.js";
import type { GuardClient } from "./hook-protocols.js";

/** How the hook is started: node and Torii's entry point, both absolute; the configuration root when not the default. */
export interface GuardLaunch {
  readonly node: string;
  readonly toriiEntry: string;
  readonly configDir?: string;
  /** Quote for Windows' cmd/PowerShell instead of a POSIX shell. */
  readonly windows?: boolean;
}

/** Seconds a client waits for the hook: the guard answers in well under one. */
export const GUARD_TIMEOUT_SECONDS = 10;
/** The name the hook carries where a client shows one. */
export const GUARD_HOOK_NAME = "torii-guard";

/** The shell line that runs `torii guard` for `client`. */
export function guardCommandLine(client: GuardClient, launch: GuardLaunch): string {
  const quote = launch.windows === true ? (word: string) => `"${word.replaceAll('"', '\\"')}"` : shellQuote;
  const config = launch.configDir === undefined ? "" : ` --config ${quote(launch.configDir)}`;
  return `${quote(launch.node)} ${quote(launch.toriiEntry)} guard --client ${client}${config}`;
}

/** The JSON fragment `client` needs, to merge into its hook configuration file. */
export function guardHookConfig(client: GuardClient, launch: GuardLaunch): Record<string, unknown> {
  const command = guardCommandLine(client, launch);
  switch (client) {
    case "claude-code":
    case "codex":
      return { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command, timeout: GUARD_TIMEOUT_SECONDS }] }] } };
    case "gemini-cli":
      return {
        hooks: {
          BeforeTool: [{ matcher: "run_shell_command", hooks: [{ type: "command", name: GUARD_HOOK_NAME, command, timeout: GUARD_TIMEOUT_SECONDS * 1000 }] }],
        },
      };
    case "cursor":
      return { version: 1, hooks: { beforeShellExecution: [{ command }] } };
    case "copilot-cli":
      return { version: 1, hooks: { preToolUse: [{ type: "command", bash: command, powershell: command, timeoutSec: GUARD_TIMEOUT_SECONDS }] } };
  }
}
