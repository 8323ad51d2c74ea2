/**
 * A JSON client file that starts with a byte order mark (Notepad, VS Code's
 * "UTF-8 with BOM") was refused as "not valid JSON" at 1:1: the JSON after the
 * mark is what counts. It is edited like any other, the mark, CRLF line ends
 * and comments kept, and uninstall gives the original bytes back.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse as parseJsonc } from "jsonc-parser";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const ORIGINAL = Buffer.from('\uFEFF{\r\n  // the operator\'s servers\r\n  "servers": {\r\n    "fs": { "command": "npx" },\r\n  },\r\n}\r\n', "utf8");

describe("a JSON file with a byte order mark", () => {
  test.each([["vscode"], ["gemini-cli", "--guard"]])("%s: edited with the mark kept, and restored byte for byte", async (id, ...flags) => {
    const home = tempDirectory("torii-agent-bom-");
    const env = { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") };
    const file = path.join(home, "config.json");
    const original = id === "vscode" ? ORIGINAL : Buffer.from(ORIGINAL.toString("utf8").replace('"servers"', '"mcpServers"'), "utf8");
    writeFileSync(file, original);
    const installed = await runCli(["agent", "install", id, "--config", file, ...flags], env);
    expect(installed.status, installed.stderr).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text.startsWith("\uFEFF{\r\n  // the operator's servers\r\n")).toBe(true);
    const parsed = parseJsonc(text.slice(1)) as Record<string, Record<string, unknown>>;
    expect(Object.keys(parsed[id === "vscode" ? "servers" : "mcpServers"] ?? {})).toEqual(["fs", "torii"]);
    expect((await runCli(["agent", "status", id, "--config", file], env)).stdout).toMatch(/ registered /u);
    const removed = await runCli(["agent", "uninstall", id, "--config", file], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect(readFileSync(file).equals(original)).toBe(true);
  });
});
