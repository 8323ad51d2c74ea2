/**
 * A client's hook editor adds a hook for a matcher to the group already there,
 * so the operator's own `Bash` hook can end up in the group that holds Torii's
 * guard. Re-installing (which replaced the group) and uninstalling (which
 * removed it) deleted that hook. Both now refuse, naming the file and the
 * group, and leave the hook file and the server entry's file byte for byte as
 * they were (never half a registration).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const OPERATOR_HOOK = { type: "command", command: "/home/ann/bin/audit-bash.sh" };

describe("a hook group Torii's guard shares with an operator's hook", () => {
  test.each([["install", "--guard"], ["uninstall"]])("claude-code: %s refuses and keeps the operator's hook", async (command, ...flags) => {
    const home = tempDirectory("torii-agent-shared-");
    const env = { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") };
    const settingsFile = path.join(home, ".claude", "settings.json");
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    expect((await runCli(["agent", "install", "claude-code", "--guard"], env)).status).toBe(0);
    const settings = JSON.parse(readFileSync(settingsFile, "utf8")) as { hooks: { PreToolUse: { hooks: unknown[] }[] } };
    settings.hooks.PreToolUse[0]?.hooks.push(OPERATOR_HOOK);
    // Another Torii's paths, so the install has something to rewrite.
    const shared = JSON.stringify(settings, null, 2).replace(/"\/[^"]*? guard --client/u, '"/old/node /old/dist/cli.js guard --client');
    writeFileSync(settingsFile, shared);
    const backups = readdirSync(path.dirname(settingsFile)).filter((name) => name.includes(".torii-backup")).length;
    // The server entry lives in another file (~/.claude.json): the refusal must leave it as it was too (review 16c).
    const serverFile = path.join(home, ".claude.json");
    const serverBefore = readFileSync(serverFile, "utf8");
    writeFileSync(serverFile, serverBefore.replace(/"\/[^"]*?cli\.js"/u, '"/old/dist/cli.js"'));
    const serverShared = readFileSync(serverFile, "utf8");

    const result = await runCli(["agent", command, "claude-code", ...flags], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${settingsFile}: hooks.PreToolUse[0] holds Torii's guard hook and 1 other hook(s)`);
    expect(readFileSync(settingsFile, "utf8")).toBe(shared);
    expect(readFileSync(serverFile, "utf8")).toBe(serverShared);
    expect(readdirSync(path.dirname(settingsFile)).filter((name) => name.includes(".torii-backup")).length).toBe(backups);
  });
});
