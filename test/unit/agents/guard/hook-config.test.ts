/**
 * The hook registration each client needs: the event, the matcher for its shell
 * tool, and a command line of absolute paths that a POSIX shell splits back
 * into exactly node, Torii's entry and `guard --client <client>`.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, test } from "vitest";
import { guardCommandLine, guardHookConfig } from "../../../../src/agents/guard/hook-config.js";
import { GUARD_CLIENTS } from "../../../../src/agents/guard/hook-protocols.js";
import { GUARD_CLIENT_CHOICES } from "../../../../src/commands/guard/guard-command.js";

const LAUNCH = { node: "/opt/node 20/bin/node", toriiEntry: "/home/ana/it's/torii/dist/cli.js", configDir: "/home/ana/.config/torii" };

describe("guardHookConfig", () => {
  test("Claude Code and Codex: PreToolUse on Bash, timeout in seconds", () => {
    expect(guardHookConfig("claude-code", LAUNCH)).toEqual({
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: guardCommandLine("claude-code", LAUNCH), timeout: 10 }] }] },
    });
    expect(JSON.stringify(guardHookConfig("codex", LAUNCH))).toContain('"matcher":"Bash"');
  });

  test("Gemini CLI: BeforeTool on run_shell_command, timeout in milliseconds", () => {
    expect(guardHookConfig("gemini-cli", LAUNCH)).toEqual({
      hooks: {
        BeforeTool: [
          { matcher: "run_shell_command", hooks: [{ type: "command", name: "torii-guard", command: guardCommandLine("gemini-cli", LAUNCH), timeout: 10_000 }] },
        ],
      },
    });
  });

  test("Cursor: beforeShellExecution; Copilot CLI: preToolUse with bash and powershell lines", () => {
    expect(guardHookConfig("cursor", LAUNCH)).toEqual({ version: 1, hooks: { beforeShellExecution: [{ command: guardCommandLine("cursor", LAUNCH) }] } });
    expect(guardHookConfig("copilot-cli", LAUNCH)).toMatchObject({ version: 1, hooks: { preToolUse: [{ type: "command", timeoutSec: 10 }] } });
  });

  test("the command line splits back into the exact words in a real POSIX shell", () => {
    const line = guardCommandLine("claude-code", LAUNCH);
    const words = spawnSync("/bin/sh", ["-c", `for w in ${line}; do printf '%s\\n' "$w"; done`], { encoding: "utf8" })
      .stdout.trim()
      .split("\n");
    expect(words).toEqual([LAUNCH.node, LAUNCH.toriiEntry, "guard", "--client", "claude-code", "--config", LAUNCH.configDir]);
  });

  test("the command's --client choices are the clients the guard speaks", () => {
    expect(GUARD_CLIENT_CHOICES).toEqual([...GUARD_CLIENTS]);
  });
});
