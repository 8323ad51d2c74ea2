/**
 * `torii agent install|uninstall` never loses the operator's bytes: a client
 * file that is not UTF-8 is refused unwritten (JSON and TOML alike), the
 * backup holds the original bytes and is never overwritten by a later run, and
 * a JSON file with a repeated key (the client reads the last, an edit would
 * change the first) is refused with file:line.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-bytes-");
  return { home, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

const backupsOf = (file: string): string[] =>
  readdirSync(path.dirname(file))
    .filter((name) => name.startsWith(`${path.basename(file)}.torii-backup`))
    .sort();

describe("client files that are not UTF-8", () => {
  test.each([
    ["gemini-cli", "settings.json", Buffer.concat([Buffer.from('{\n  "ui": "caf'), Buffer.from([0xff]), Buffer.from('"\n}\n')]), "2:13", 14],
    ["codex", "config.toml", Buffer.concat([Buffer.from('model = "o3"\nnote = "a'), Buffer.from([0xc3, 0x28]), Buffer.from('"\n')]), "2:10", 22],
  ])("%s: refused with the file, line, column and byte offset; nothing is written", async (id, name, bytes, where, offset) => {
    const { home, env } = scratch();
    const file = path.join(home, name);
    writeFileSync(file, bytes);
    const result = await runCli(["agent", "install", id, "--config", file], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${file}:${where}: not valid UTF-8 (byte offset ${offset})`);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(backupsOf(file)).toEqual([]);
  });
});

describe("backups", () => {
  test("the backup holds the original bytes (CRLF, non-ASCII) and a later run never overwrites it", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "settings.json");
    const original = Buffer.from('{\r\n  "ui": "caf\u00e9 \u2603"\r\n}\r\n', "utf8");
    writeFileSync(file, original);
    expect((await runCli(["agent", "install", "gemini-cli", "--config", file], env)).status).toBe(0);
    expect(readFileSync(`${file}.torii-backup`).equals(original)).toBe(true);
    const installed = readFileSync(file);
    expect((await runCli(["agent", "uninstall", "gemini-cli", "--config", file], env)).status).toBe(0);
    expect((await runCli(["agent", "install", "gemini-cli", "--config", file], env)).status).toBe(0);
    expect(readFileSync(`${file}.torii-backup`).equals(original)).toBe(true);
    const later = backupsOf(file).slice(1);
    expect(later).toHaveLength(2);
    expect(later.every((name) => /\.torii-backup-\d{8}T\d{6}Z(-\d+)?$/u.test(name))).toBe(true);
    expect(later.map((name) => readFileSync(path.join(home, name))).some((bytes) => bytes.equals(installed))).toBe(true);
  });
});

describe("a repeated key", () => {
  test("install refuses a file where torii appears twice, naming both lines; the file is left as it was", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "settings.json");
    const text = '{\n  "mcpServers": {\n    "torii": {"command": "old"},\n    "torii": {"command": "other"}\n  }\n}\n';
    writeFileSync(file, text);
    const result = await runCli(["agent", "install", "gemini-cli", "--config", file], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${file}:4:5: duplicate key "torii" (first on line 3)`);
    expect(readFileSync(file, "utf8")).toBe(text);
    expect(backupsOf(file)).toEqual([]);
  });
});

describe("the operator's hook groups", () => {
  test("install --guard appends Torii's group and uninstall removes it, the operator's groups byte for byte as written", async () => {
    const { home, env } = scratch();
    const settingsFile = path.join(home, ".claude", "settings.json");
    mkdirSync(path.dirname(settingsFile), { recursive: true });
    const mine = '{ "matcher": "Write",   "hooks": [ {"type":"command", "command": "/usr/local/bin/lint"} ] }';
    const original = `{\n  "hooks": {\n    "PreToolUse": [\n      ${mine}\n    ]\n  }\n}\n`;
    writeFileSync(settingsFile, original);
    const installed = await runCli(["agent", "install", "claude-code", "--guard"], env);
    expect(installed.status, installed.stderr).toBe(0);
    const withGuard = readFileSync(settingsFile, "utf8");
    expect(withGuard).toContain(`      ${mine},\n`);
    const groups = (JSON.parse(withGuard) as { hooks: { PreToolUse: { matcher: string }[] } }).hooks.PreToolUse;
    expect(groups.map((group) => group.matcher)).toEqual(["Write", "Bash"]);
    expect((await runCli(["agent", "install", "claude-code", "--guard", "--json"], env)).stdout).toMatch(/"changed": false/u);
    expect((await runCli(["agent", "uninstall", "claude-code"], env)).status).toBe(0);
    expect(readFileSync(settingsFile, "utf8")).toContain(`      ${mine}`);
    expect((JSON.parse(readFileSync(settingsFile, "utf8")) as { hooks: { PreToolUse: unknown[] } }).hooks.PreToolUse).toHaveLength(1);
  });
});
