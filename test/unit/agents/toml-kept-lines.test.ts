/**
 * Rewriting or removing Torii's table in Codex's config.toml keeps every line
 * that is not Torii's: a comment heading set off from the next table by a
 * blank line, a commented-out entry at the end of the file, and runs of blank
 * lines elsewhere (inside a multi-line string they are part of a value).
 */
import { parse as parseToml } from "smol-toml";
import { describe, expect, test } from "vitest";
import { editTomlDocument } from "../../../src/agents/toml-document.js";

const ENTRY = { command: "/usr/bin/node", args: ["/opt/torii/dist/cli.js", "mcp"], env: { TORII_CONFIG_DIR: "/home/ann/.config/torii" } };
const PATH = ["mcp_servers", "torii"];
const OLD_TABLE = `[mcp_servers.torii]\ncommand = "/old/node"\n\n`;

describe("lines outside Torii's table", () => {
  const before = `model = "o3"\n\n`;
  const after = `# ==== my own servers ====\n\n[mcp_servers.github]\ncommand = "gh"\n\n# [mcp_servers.old]\n# command = "old"\n`;

  test("a comment heading separated from the next table by a blank line survives a re-install and an uninstall", () => {
    const file = before + OLD_TABLE + after;
    const installed = editTomlDocument("c.toml", file, [{ path: PATH, value: ENTRY }]);
    expect(installed.endsWith(`\n\n${after}`)).toBe(true);
    expect(installed.startsWith(before)).toBe(true);
    const removed = editTomlDocument("c.toml", installed, [{ path: PATH, value: undefined }]);
    expect(removed).toBe(before + after);
  });

  test("comments after Torii's table at the end of the file are kept", () => {
    const tail = `# [mcp_servers.later]\n# command = "later"\n`;
    const file = `${before}${OLD_TABLE}${tail}`;
    const installed = editTomlDocument("c.toml", file, [{ path: PATH, value: ENTRY }]);
    expect(installed.endsWith(`\n${tail}`)).toBe(true);
    expect(editTomlDocument("c.toml", installed, [{ path: PATH, value: undefined }])).toBe(before + tail);
  });

  test("blank lines in a multi-line string elsewhere do not stop a re-install, and keep their bytes", () => {
    const instructions = `instructions = """\nfirst\n\n\n\nlast\n"""\n\n`;
    const file = instructions + OLD_TABLE + `[mcp_servers.github]\ncommand = "gh"\n`;
    const installed = editTomlDocument("c.toml", file, [{ path: PATH, value: ENTRY }]);
    expect(installed.startsWith(instructions)).toBe(true);
    expect((parseToml(installed) as { instructions: string }).instructions).toBe("first\n\n\n\nlast\n");
    expect(editTomlDocument("c.toml", installed, [{ path: PATH, value: undefined }])).toBe(instructions + `[mcp_servers.github]\ncommand = "gh"\n`);
  });

  test("a CRLF file gets Torii's lines with CRLF too, appended or rewritten in place, and keeps them after an uninstall", () => {
    const crlf = `model = "o3"\r\n\r\n[mcp_servers.github]\r\ncommand = "gh"\r\n`;
    const appended = editTomlDocument("c.toml", crlf, [{ path: PATH, value: ENTRY }]);
    expect(appended.startsWith(crlf)).toBe(true);
    expect(appended).not.toMatch(/[^\r]\n/u);
    const middle = crlf.replace("[mcp_servers.github]", `[mcp_servers.torii]\r\ncommand = "/old/node"\r\n\r\n[mcp_servers.github]`);
    const rewritten = editTomlDocument("c.toml", middle, [{ path: PATH, value: ENTRY }]);
    expect(rewritten).not.toMatch(/[^\r]\n/u);
    expect(editTomlDocument("c.toml", rewritten, [{ path: PATH, value: undefined }])).toBe(crlf);
    // Torii's table last (as its first install leaves it): re-install and uninstall (review 16c).
    const again = editTomlDocument("c.toml", appended, [{ path: PATH, value: { ...ENTRY, command: "/new/node" } }]);
    expect(again).not.toMatch(/[^\r]\n|\r(?!\n)/u);
    expect(again).toContain('command = "/new/node"\r\n');
    const removed = editTomlDocument("c.toml", appended, [{ path: PATH, value: undefined }]);
    expect(removed).not.toMatch(/[^\r]\n|\r(?!\n)/u);
    expect(removed.trimEnd()).toBe(crlf.trimEnd());
  });
});
