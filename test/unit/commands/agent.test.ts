import { readFileSync, statSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { describe, expect, test } from "vitest";
import { CLIENTS } from "../../../src/agents/clients.js";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const CLI = fileURLToPath(new URL("../../../dist/cli.js", import.meta.url));

/** A scratch home and configuration root; the CLI runs with HOME pointing at it. */
function scratch(): { home: string; root: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-home-");
  const root = path.join(home, "torii-root");
  return { home, root, env: { HOME: home, TORII_CONFIG_DIR: root, XDG_CONFIG_HOME: path.join(home, ".config") } };
}

/** Reads a client file back with the parser that client uses (JSON.parse, VS Code's jsonc-parser, a TOML parser). */
function parseBack(format: "json" | "toml", strict: boolean, text: string): Record<string, unknown> {
  if (format === "toml") return parseToml(text);
  return (strict ? JSON.parse(text) : parseJsonc(text)) as Record<string, unknown>;
}

/** Clients whose own loader is plain JSON.parse (no comments): Claude Desktop and Code, Copilot CLI. */
const STRICT_JSON = new Set(["claude-desktop", "claude-code", "copilot-cli"]);

function entryIn(parsed: Record<string, unknown>, entryPath: readonly string[]): Record<string, unknown> {
  return entryPath.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], parsed) as Record<string, unknown>;
}

describe("torii agent install, for every client", () => {
  test.each(CLIENTS.map((client) => [client.id, client] as const))("%s: written in the client's shape, parsed back, idempotent", async (id, client) => {
    const { home, root, env } = scratch();
    const first = await runCli(["agent", "install", id, "--json"], env);
    expect(first.status, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as { file: string; changed: boolean };
    expect(report.changed).toBe(true);
    expect(report.file.startsWith(home)).toBe(true);
    const entry = entryIn(parseBack(client.format, STRICT_JSON.has(id), readFileSync(report.file, "utf8")), client.entryPath);
    const argv = id === "opencode" ? (entry.command as string[]) : [entry.command as string, ...(entry.args as string[])];
    expect(argv).toEqual([process.execPath, CLI, "mcp"]);
    expect(entry.env ?? entry.environment).toEqual({ TORII_CONFIG_DIR: root });
    const before = statSync(report.file).mtimeMs;
    const second = await runCli(["agent", "install", id, "--json"], env);
    expect((JSON.parse(second.stdout) as { changed: boolean }).changed).toBe(false);
    expect(statSync(report.file).mtimeMs).toBe(before);
    expect((await runCli(["agent", "status", id], env)).stdout).toMatch(new RegExp(`^${id} +registered `, "u"));
  });

  test("the shapes that differ: VS Code's servers/type stdio, opencode's single command array, Codex's prompt approval, Gemini's trust false", async () => {
    const { env } = scratch();
    const read = async (id: string): Promise<{ text: string; file: string }> => {
      const file = (JSON.parse((await runCli(["agent", "install", id, "--json"], env)).stdout) as { file: string }).file;
      return { file, text: readFileSync(file, "utf8") };
    };
    expect((parseJsonc((await read("vscode")).text) as { servers: { torii: { type: string } } }).servers.torii.type).toBe("stdio");
    const opencode = parseJsonc((await read("opencode")).text) as { mcp: { torii: Record<string, unknown> }; permission: Record<string, string> };
    expect(opencode.mcp.torii).toMatchObject({ type: "local", enabled: true });
    expect(opencode.mcp.torii.args).toBeUndefined();
    expect(opencode.permission["torii_*"]).toBe("ask");
    expect((parseToml((await read("codex")).text) as { mcp_servers: { torii: Record<string, unknown> } }).mcp_servers.torii.default_tools_approval_mode).toBe(
      "prompt",
    );
    expect((JSON.parse((await read("gemini-cli")).text) as { mcpServers: { torii: { trust: boolean } } }).mcpServers.torii.trust).toBe(false);
  });
});

describe("merging, removing, status", () => {
  const existing = `{
  // servers the operator added by hand
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "server-filesystem"] }
  }
}
`;

  test("install merges beside other servers with a backup; uninstall removes only Torii's entry", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "cursor.json");
    writeFileSync(file, existing, { mode: 0o644 });
    const installed = await runCli(["agent", "install", "cursor", "--config", file], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(readFileSync(`${file}.torii-backup`, "utf8")).toBe(existing);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const merged = parseJsonc(readFileSync(file, "utf8")) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(merged.mcpServers)).toEqual(["fs", "torii"]);
    const removed = await runCli(["agent", "uninstall", "cursor", "--config", file], env);
    expect(removed.stdout).toContain("removed Torii from Cursor");
    expect(readFileSync(file, "utf8")).toBe(existing);
    const again = await runCli(["agent", "uninstall", "cursor", "--config", file], env);
    expect(again.stdout).toContain("nothing to remove");
  });

  test("status says outdated when Torii's paths moved, missing when absent; exit 1 unless all are registered", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "claude.json");
    expect((await runCli(["agent", "status", "claude-code", "--config", file], env)).stdout).toMatch(/^claude-code +missing /u);
    await runCli(["agent", "install", "claude-code", "--config", file], env);
    const moved = readFileSync(file, "utf8").replace(CLI, "/gone/torii/dist/cli.js");
    writeFileSync(file, moved);
    const status = await runCli(["agent", "status", "claude-code", "--config", file, "--json"], env);
    expect(status.status).toBe(1);
    const [row] = (JSON.parse(status.stdout) as { clients: { state: string; reasons: string[] }[] }).clients;
    expect(row?.state).toBe("outdated");
    expect(row?.reasons).toContain("/gone/torii/dist/cli.js does not exist (moved?)");
    await runCli(["agent", "install", "claude-code", "--config", file], env);
    expect((await runCli(["agent", "status", "claude-code", "--config", file], env)).status).toBe(0);
  });

  test("a file that does not parse is left untouched and the error says file:line:col", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "settings.json");
    const broken = '{\n  "mcpServers": {\n    "fs": { "command": "npx" "args": [] }\n  }\n}\n';
    writeFileSync(file, broken);
    const result = await runCli(["agent", "install", "gemini-cli", "--config", file], env);
    expect(result.status).toBe(3);
    expect(result.stderr).toContain(`${file}:3:`);
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(existsSync(`${file}.torii-backup`)).toBe(false);
    expect((await runCli(["agent", "status", "gemini-cli", "--config", file], env)).stdout).toMatch(/unreadable/u);
  });

  test("opencode: Torii's ask rule is added and removed, and a single-string permission is left alone", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "opencode.json");
    writeFileSync(file, '{ "permission": "allow" }\n');
    await runCli(["agent", "install", "opencode", "--config", file], env);
    expect((parseJsonc(readFileSync(file, "utf8")) as { permission: unknown }).permission).toBe("allow");
    writeFileSync(file, '{ "permission": { "bash": "ask" } }\n');
    await runCli(["agent", "install", "opencode", "--config", file], env);
    expect((parseJsonc(readFileSync(file, "utf8")) as { permission: unknown }).permission).toEqual({ bash: "ask", "torii_*": "ask" });
    await runCli(["agent", "uninstall", "opencode", "--config", file], env);
    // Only Torii's members go; the `mcp` object it created stays (it may have been the operator's).
    expect(parseJsonc(readFileSync(file, "utf8"))).toEqual({ permission: { bash: "ask" }, mcp: {} });
  });

  test("project scope writes into the current folder", async () => {
    const { home, env } = scratch();
    const project = path.join(home, "proj");
    mkdirSync(project);
    const previous = process.cwd();
    process.chdir(project);
    try {
      const result = await runCli(["agent", "install", "claude-code", "--scope", "project"], env);
      expect(result.status, result.stderr).toBe(0);
    } finally {
      process.chdir(previous);
    }
    expect(Object.keys((JSON.parse(readFileSync(path.join(project, ".mcp.json"), "utf8")) as { mcpServers: object }).mcpServers)).toEqual(["torii"]);
  });

  test("an unknown client or a scope the client lacks is a usage error", async () => {
    const { env } = scratch();
    const unknown = await runCli(["agent", "install", "notepad"], env);
    expect(unknown.status).toBe(3);
    expect(unknown.stderr).toContain("known clients: claude-desktop, claude-code");
    const scope = await runCli(["agent", "install", "claude-desktop", "--scope", "project"], env);
    expect(scope.status).toBe(3);
    expect(scope.stderr).toContain("--scope user");
  });
});
