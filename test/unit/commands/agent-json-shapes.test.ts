/**
 * `torii agent install` and JSON the parser reads differently from the client,
 * or cannot edit: a member named "__proto__" (the parser made it the object's
 * prototype, so Torii saw an entry the client never does and wrote
 * `undefined: {…}`, corrupting the file), and a `mcpServers` that is an array
 * or a string (an unexpected error without the file). Each is refused with a
 * ConfigError naming the file; the file keeps its bytes and no backup is left.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-json-");
  return { home, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

const backupsIn = (dir: string): string[] => readdirSync(dir).filter((name) => name.includes(".torii-backup"));

describe("JSON Torii cannot read as the client does", () => {
  test.each([
    ["top level", '{"__proto__": {"mcpServers": {"torii": {"command": "/usr/bin/node"}}}}\n', "1:2"],
    ["inside mcpServers", '{\n  "mcpServers": {\n    "__proto__": {"torii": {"command": "/usr/bin/node"}}\n  }\n}\n', "3:5"],
  ])('a "__proto__" member (%s) is refused at its line and column; the file is untouched', async (_where, original, position) => {
    const { home, env } = scratch();
    const file = path.join(home, "mcp.json");
    writeFileSync(file, original);
    for (const command of ["install", "uninstall"]) {
      const result = await runCli(["agent", command, "cursor", "--config", file], env);
      expect(result.status, command).not.toBe(0);
      expect(result.stderr).toContain(`${file}:${position}: a member named "__proto__"`);
    }
    expect(readFileSync(file, "utf8")).toBe(original);
    expect(() => JSON.parse(readFileSync(file, "utf8")) as unknown).not.toThrow();
    expect(backupsIn(home)).toEqual([]);
  });

  test.each([
    ["an array", '{ "mcpServers": [] }\n'],
    ["a string", '{ "mcpServers": "none" }\n'],
  ])("a mcpServers that is %s is refused with a ConfigError naming the file", async (_kind, original) => {
    const { home, env } = scratch();
    const file = path.join(home, "mcp.json");
    writeFileSync(file, original);
    const result = await runCli(["agent", "install", "cursor", "--config", file], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${file}: mcpServers.torii cannot be set`);
    expect(result.stderr).not.toContain("unexpected error");
    expect(readFileSync(file, "utf8")).toBe(original);
    expect(backupsIn(home)).toEqual([]);
  });
});
