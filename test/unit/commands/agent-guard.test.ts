/**
 * `torii agent install <client> --guard`: Torii's pre-tool hook goes into the
 * client's own hook file beside the operator's hooks, is recognised again
 * (idempotent, status), and uninstall removes only Torii's part. The installed
 * command line is run through a real /bin/sh to prove it starts `torii guard`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; root: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-guard-");
  const root = path.join(home, "torii-root");
  return { home, root, env: { HOME: home, TORII_CONFIG_DIR: root, XDG_CONFIG_HOME: path.join(home, ".config") } };
}

const OPERATOR_HOOK = { matcher: "Write", hooks: [{ type: "command", command: "/usr/local/bin/my-linter" }] };

interface ClaudeSettings {
  model?: string;
  hooks: Record<string, { matcher: string; hooks: { command: string }[] }[]>;
}

describe("torii agent install --guard", () => {
  test("claude-code: the hook joins the operator's hooks, is idempotent, shows in status, and uninstall removes only Torii's", async () => {
    const { home, root, env } = scratch();
    const settingsFile = path.join(home, ".claude", "settings.json");
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    writeFileSync(settingsFile, JSON.stringify({ model: "opus", hooks: { PreToolUse: [OPERATOR_HOOK] } }, null, 2));

    const installed = await runCli(["agent", "install", "claude-code", "--guard", "--json"], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(JSON.parse(installed.stdout)).toMatchObject({ guard: { file: settingsFile, changed: true } });
    const settings = JSON.parse(readFileSync(settingsFile, "utf8")) as ClaudeSettings;
    expect(settings.model).toBe("opus");
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse?.[0]).toEqual(OPERATOR_HOOK);
    const ours = settings.hooks.PreToolUse?.[1];
    expect(ours?.matcher).toBe("Bash");
    expect(ours?.hooks[0]?.command).toMatch(new RegExp(` guard --client claude-code --config '?${root}'?$`, "u"));

    const mtime = statSync(settingsFile).mtimeMs;
    const again = await runCli(["agent", "install", "claude-code", "--guard", "--json"], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, guard: { changed: false } });
    expect(statSync(settingsFile).mtimeMs).toBe(mtime);

    const status = await runCli(["agent", "status", "claude-code", "--guard"], env);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain("(guard: installed)");

    const removed = await runCli(["agent", "uninstall", "claude-code"], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect((JSON.parse(readFileSync(settingsFile, "utf8")) as ClaudeSettings).hooks.PreToolUse).toEqual([OPERATOR_HOOK]);
    const after = await runCli(["agent", "status", "claude-code", "--guard"], env);
    expect(after.status).toBe(1);
  });

  test("the installed command line, run by a real shell with Claude Code's hook input, blocks a direct kubectl", async () => {
    const { home, env } = scratch();
    expect((await runCli(["provider", "install", "kubectl"], env)).status).toBe(0);
    expect((await runCli(["agent", "install", "claude-code", "--guard"], env)).status).toBe(0);
    const settings = JSON.parse(readFileSync(path.join(home, ".claude", "settings.json"), "utf8")) as ClaudeSettings;
    const command = settings.hooks.PreToolUse?.[0]?.hooks[0]?.command ?? "";
    const hookInput = (line: string): string => JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: line } });
    const run = (line: string) => spawnSync("/bin/sh", ["-c", command], { input: hookInput(line), encoding: "utf8", env: { ...process.env, ...env } });
    const blocked = run("sudo kubectl get pods");
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toContain("kubectl");
    expect(run("echo kubectl").status).toBe(0);
  });

  test("gemini-cli: the hook and the server entry share settings.json, written in one edit with one backup of the original", async () => {
    const { home, env } = scratch();
    const settingsFile = path.join(home, ".gemini", "settings.json");
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    const original = '{\n  // the operator\'s theme\n  "theme": "dark"\n}\n';
    writeFileSync(settingsFile, original);
    const installed = await runCli(["agent", "install", "gemini-cli", "--guard"], env);
    expect(installed.status, installed.stderr).toBe(0);
    const text = readFileSync(settingsFile, "utf8");
    expect(text).toContain("// the operator's theme");
    expect(text).toContain('"BeforeTool"');
    expect(text).toContain('"mcpServers"');
    expect(readFileSync(`${settingsFile}.torii-backup`, "utf8")).toBe(original);
  });

  test("a client without a pre-tool hook refuses --guard and names the clients that have one", async () => {
    const { env } = scratch();
    const refused = await runCli(["agent", "install", "vscode", "--guard"], env);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/no pre-tool hook[\s\S]*claude-code, codex, gemini-cli, cursor/u);
  });
});
