/**
 * opencode's `permission` rule for Torii's tools (`torii_*`) is Torii's only
 * when Torii wrote it ("ask", where there was none). A rule the operator set
 * before (a stricter "deny", a per-tool object) is neither replaced by install
 * nor removed by uninstall, and status does not ask for it to be replaced.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { file: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-opencode-");
  const env = { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") };
  return { file: path.join(home, "opencode.json"), env };
}

const permissionOf = (file: string): unknown => (parseJsonc(readFileSync(file, "utf8")) as { permission?: unknown }).permission;

describe("opencode's torii_* permission", () => {
  test.each([["deny"], [{ torii_run_command: "deny", "*": "ask" }]])("the operator's %j is kept by install, status and uninstall", async (rule) => {
    const { file, env } = scratch();
    writeFileSync(file, JSON.stringify({ permission: { bash: "ask", "torii_*": rule } }));
    expect((await runCli(["agent", "install", "opencode", "--config", file], env)).status).toBe(0);
    expect(permissionOf(file)).toEqual({ bash: "ask", "torii_*": rule });
    expect((await runCli(["agent", "status", "opencode", "--config", file], env)).status).toBe(0);
    expect((await runCli(["agent", "uninstall", "opencode", "--config", file], env)).status).toBe(0);
    expect(permissionOf(file)).toEqual({ bash: "ask", "torii_*": rule });
  });

  test("the ask Torii adds is removed again", async () => {
    const { file, env } = scratch();
    writeFileSync(file, JSON.stringify({ permission: { bash: "ask" } }));
    await runCli(["agent", "install", "opencode", "--config", file], env);
    expect(permissionOf(file)).toEqual({ bash: "ask", "torii_*": "ask" });
    await runCli(["agent", "uninstall", "opencode", "--config", file], env);
    expect(permissionOf(file)).toEqual({ bash: "ask" });
  });
});
