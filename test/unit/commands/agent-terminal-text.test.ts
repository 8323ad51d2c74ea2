/**
 * A client file can be the agent's (a cloned project's `.mcp.json`), and the
 * messages about it quote what it holds: a repeated key spelled with a CSI
 * (U+009B) or a bidi override (U+202E) reached the operator's terminal raw in
 * `torii agent install|status`. Every character that does not show on screen
 * is now written as `\u{…}`, in the error and in the status lines.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const RAW = /[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/u;

describe("text from a client file on the operator's terminal", () => {
  test("a repeated key with a CSI and a bidi override is shown escaped by install and status", async () => {
    const home = tempDirectory("torii-agent-text-");
    const project = path.join(home, "project");
    mkdirSync(project);
    const env = { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") };
    writeFileSync(path.join(project, ".mcp.json"), '{"mcpServers": {"\\u009b2J\\u202ex": {}, "\\u009b2J\\u202ex": {}}}');
    const previous = process.cwd();
    process.chdir(project);
    try {
      const install = await runCli(["agent", "install", "claude-code", "--scope", "project"], env);
      expect(install.status).not.toBe(0);
      expect(install.stderr).toContain("duplicate key");
      expect(install.stderr).toContain("\\u{9b}2J\\u{202e}x");
      expect(install.stderr).not.toMatch(RAW);
      const status = await runCli(["agent", "status", "claude-code", "--scope", "project"], env);
      expect(status.stdout).toContain("duplicate key");
      expect(status.stdout).not.toMatch(RAW);
    } finally {
      process.chdir(previous);
    }
  });
});
