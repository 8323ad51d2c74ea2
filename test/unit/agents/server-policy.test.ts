/**
 * Claude Code's managed settings can forbid Torii's server by name or exact
 * command (deniedMcpServers, which wins) or allow only a list that lacks it
 * (allowedMcpServers with allowManagedMcpServersOnly): a registration they
 * forbid never starts, so status calls it `blocked`, naming the file.
 */
import path from "node:path";
import { writeFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { clientById } from "../../../src/agents/clients.js";
import type { ClientAdapter } from "../../../src/agents/adapter.js";
import { managedPolicyBlock, policyStatus } from "../../../src/agents/server-policy.js";
import { claudeManagedSettings } from "../../../src/agents/system-places.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const claude = clientById("claude-code") as ClientAdapter;
const launch = { node: "/usr/bin/node", cli: "/opt/torii/dist/cli.js", configRoot: "/home/ann/.config/torii" };
const command = ["/usr/bin/node", "/opt/torii/dist/cli.js", "mcp"];
const place = { platform: "linux" as const, env: {}, home: "/home/ann", cwd: "/home/ann/proj" };

describe("Claude Code's managed settings", () => {
  test("where they are", () => {
    expect(claudeManagedSettings(place)).toBe("/etc/claude-code/managed-settings.json");
    expect(claudeManagedSettings({ ...place, platform: "darwin" })).toBe("/Library/Application Support/ClaudeCode/managed-settings.json");
    expect(claudeManagedSettings({ ...place, platform: "win32" })).toBe("C:\\Program Files\\ClaudeCode\\managed-settings.json");
  });

  test.each([
    ["denied by name", { deniedMcpServers: [{ serverName: "torii" }] }, true],
    ["denied by its exact command", { deniedMcpServers: [{ serverCommand: command }] }, true],
    ["denied although allowed (the denylist wins)", { allowedMcpServers: [{ serverName: "torii" }], deniedMcpServers: [{ serverName: "torii" }] }, true],
    ["only the managed allowlist, without Torii", { allowManagedMcpServersOnly: true, allowedMcpServers: [{ serverName: "github" }] }, true],
    ["only the managed allowlist, with Torii", { allowManagedMcpServersOnly: true, allowedMcpServers: [{ serverName: "torii" }] }, false],
    ["another server denied", { deniedMcpServers: [{ serverName: "github" }] }, false],
  ])("%s", (_what, settings, blocked) => {
    expect(managedPolicyBlock(settings, command) !== undefined).toBe(blocked);
  });

  test("status: blocked, naming the file; nothing without the file", async () => {
    const file = path.join(tempDirectory("torii-managed-settings-"), "managed-settings.json");
    expect(await policyStatus(claude, place, launch, file)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ deniedMcpServers: [{ serverName: "torii" }] }));
    const status = await policyStatus(claude, place, launch, file);
    expect(status?.state).toBe("blocked");
    expect(status?.reasons.join("\n")).toContain(file);
  });
});
