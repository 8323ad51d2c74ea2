/**
 * Torii's guard hook is the one whose command line starts Torii's guard
 * (`<node> …/dist/cli.js guard --client …`, or Torii's bin), not any hook whose
 * text holds "guard --client": the operator's own `my-guard guard --client x`
 * (or a hook merely naming it in a comment field) is neither replaced by install
 * nor removed by uninstall, and does not make status say the guard is there.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; settingsFile: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-hooks-");
  const settingsFile = path.join(home, ".claude", "settings.json");
  mkdirSync(path.dirname(settingsFile), { recursive: true });
  return { home, settingsFile, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

const OPERATOR_GROUPS = [
  { matcher: "Bash", hooks: [{ type: "command", command: "/usr/local/bin/my-guard guard --client claude-code" }] },
  { matcher: "Bash", hooks: [{ type: "command", command: "/usr/local/bin/audit", description: "runs before torii's node cli.js guard --client claude-code" }] },
  { matcher: "Bash", hooks: [{ type: "command", command: "node /home/ann/tools/cli.js guard --client claude-code" }] },
];

interface Settings {
  hooks: { PreToolUse: unknown[] };
}

describe("the operator's hooks that mention guard --client", () => {
  test("claude-code: kept by install --guard and uninstall; status does not count them as Torii's guard", async () => {
    const { settingsFile, env } = scratch();
    writeFileSync(settingsFile, JSON.stringify({ hooks: { PreToolUse: OPERATOR_GROUPS } }, null, 2));
    const status = await runCli(["agent", "status", "claude-code", "--json"], env);
    expect((JSON.parse(status.stdout) as { clients: { guard: string }[] }).clients[0]?.guard).toBe("missing");

    const installed = await runCli(["agent", "install", "claude-code", "--guard"], env);
    expect(installed.status, installed.stderr).toBe(0);
    const after = (JSON.parse(readFileSync(settingsFile, "utf8")) as Settings).hooks.PreToolUse;
    expect(after.slice(0, OPERATOR_GROUPS.length)).toEqual(OPERATOR_GROUPS);
    expect(after).toHaveLength(OPERATOR_GROUPS.length + 1);

    const removed = await runCli(["agent", "uninstall", "claude-code"], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect((JSON.parse(readFileSync(settingsFile, "utf8")) as Settings).hooks.PreToolUse).toEqual(OPERATOR_GROUPS);
  });
});
