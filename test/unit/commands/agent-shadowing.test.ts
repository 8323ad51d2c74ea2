/**
 * `torii agent status` for the user's file is not the whole story in a folder:
 * a project's file (a cloned repository's `.mcp.json`, `.cursor/mcp.json`,
 * `.gemini/settings.json`, …) or Claude Code's local scope can hold an entry
 * named torii that the client starts there instead of, or beside, the one the
 * operator registered. Status reads those places too: another program there
 * is `foreign`, another Torii entry in a place the client prefers is
 * `outdated`; a user's entry under a project's is not counted against it.
 */
import { linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify as toToml } from "smol-toml";
import { describe, expect, test } from "vitest";
import { CLIENTS } from "../../../src/agents/clients.js";
import type { ClientAdapter } from "../../../src/agents/adapter.js";
import { runCliIn } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; project: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-shadow-");
  const project = path.join(home, "project");
  mkdirSync(project);
  return { home, project, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

const runIn = runCliIn;

function stateOf(result: { stdout: string }): { state: string; reasons: string[] } | undefined {
  return (JSON.parse(result.stdout) as { clients: { state: string; reasons: string[] }[] }).clients[0];
}

/** Writes `entry` under Torii's name into `client`'s project file in `project`. */
function plantProjectEntry(client: ClientAdapter, project: string, home: string, entry: unknown): string {
  const file = client.configFile("project", { platform: process.platform, env: {}, home, cwd: project });
  mkdirSync(path.dirname(file), { recursive: true });
  const [key = "", name = ""] = client.entryPath;
  const document = { [key]: { [name]: entry } };
  writeFileSync(file, client.format === "toml" ? toToml(document) : JSON.stringify(document));
  return file;
}

const withProjectScope = CLIENTS.filter((client) => client.scopes.includes("project"));

describe("entries the client reads besides the file checked", () => {
  test.each(withProjectScope.map((client) => [client.id, client] as const))(
    "%s: a project's look-alike makes the user's registration foreign",
    async (id, client) => {
      const { home, project, env } = scratch();
      expect((await runIn(project, ["agent", "install", id], env)).status).toBe(0);
      expect((await runIn(project, ["agent", "status", id], env)).status).toBe(0);
      const planted = client.id === "opencode" ? { type: "local", command: ["npx", "-y", "helper"] } : { command: "npx", args: ["-y", "helper"] };
      const file = plantProjectEntry(client, project, home, planted);
      const status = await runIn(project, ["agent", "status", id, "--json"], env);
      expect(status.status).toBe(1);
      expect(stateOf(status)?.state).toBe("foreign");
      expect(stateOf(status)?.reasons.join("\n")).toContain(file);
    },
  );

  test("install says so (and exits 1) when the entry it wrote is not the one the client starts in this folder", async () => {
    const { home, project, env } = scratch();
    const client = CLIENTS.find((known) => known.id === "claude-code") as ClientAdapter;
    const file = plantProjectEntry(client, project, home, { command: "npx", args: ["-y", "helper"] });
    const installed = await runIn(project, ["agent", "install", "claude-code", "--json"], env);
    expect(installed.status).toBe(1);
    const report = JSON.parse(installed.stdout) as { changed: boolean; shadowed_by: string[] };
    expect(report.changed).toBe(true);
    expect(report.shadowed_by.join("\n")).toContain(file);
  });

  test("claude-code: another Torii entry in the local scope (projects[folder] in ~/.claude.json) makes the user's registration outdated", async () => {
    const { home, project, env } = scratch();
    expect((await runIn(project, ["agent", "install", "claude-code"], env)).status).toBe(0);
    const file = path.join(home, ".claude.json");
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    parsed.projects = { [project]: { mcpServers: { torii: { command: "/usr/bin/node", args: ["/other/dist/cli.js", "mcp"] } } } };
    writeFileSync(file, JSON.stringify(parsed));
    const status = await runIn(project, ["agent", "status", "claude-code", "--json"], env);
    expect(status.status).toBe(1);
    expect(stateOf(status)?.state).toBe("outdated");
    expect(stateOf(status)?.reasons.join("\n")).toContain("local scope");
  });

  test("a project's registration is not outdated because the user's entry (which the client ranks below it) differs", async () => {
    const { home, project, env } = scratch();
    expect((await runIn(project, ["agent", "install", "cursor", "--scope", "project"], env)).status).toBe(0);
    const user = path.join(home, ".cursor", "mcp.json");
    mkdirSync(path.dirname(user), { recursive: true });
    writeFileSync(user, JSON.stringify({ mcpServers: { torii: { command: "/usr/bin/node", args: ["/other/dist/cli.js", "mcp"], env: {} } } }));
    const status = await runIn(project, ["agent", "status", "cursor", "--scope", "project", "--json"], env);
    expect(stateOf(status)?.state, status.stdout).toBe("registered");
    expect(status.status).toBe(0);
  });
});

// A place Torii refuses to read (a repeated key, a second hard link, bytes not UTF-8) is read fine by the client:
// it must not leave status "registered".
const FOREIGN = { command: "npx", args: ["-y", "torii-helper"] };

describe("a project .mcp.json Claude Code reads but Torii refuses to", () => {
  test.each([
    ["a repeated key", (file: string) => writeFileSync(file, `{"mcpServers": {"torii": ${JSON.stringify(FOREIGN)}}, "note": 1, "note": 2}`)],
    [
      "a second hard link",
      (file: string) => {
        writeFileSync(`${file}.orig`, JSON.stringify({ mcpServers: { torii: FOREIGN } }));
        linkSync(`${file}.orig`, file);
      },
    ],
    [
      "a byte that is not UTF-8 in another field",
      (file: string) =>
        writeFileSync(
          file,
          Buffer.concat([Buffer.from(`{"mcpServers": {"torii": ${JSON.stringify(FOREIGN)}}, "note": "`), Buffer.from([0xff]), Buffer.from('"}')]),
        ),
    ],
  ])("%s: status is not 'registered'", async (_what, plant) => {
    const { project, env } = scratch();
    expect((await runIn(project, ["agent", "install", "claude-code"], env)).status).toBe(0);
    plant(path.join(project, ".mcp.json"));
    const status = await runIn(project, ["agent", "status", "claude-code", "--json"], env);
    const [row] = (JSON.parse(status.stdout) as { clients: { state: string }[] }).clients;
    expect(row?.state).not.toBe("registered"); // actual: "registered", exit 0
  });
});

test("install warns about a project file it cannot read, and exits 1", async () => {
  const { project, env } = scratch();
  writeFileSync(path.join(project, ".mcp.json"), `{"mcpServers": {"torii": ${JSON.stringify(FOREIGN)}}, "note": 1, "note": 2}`);
  const result = await runIn(project, ["agent", "install", "claude-code"], env);
  expect(result.stdout + result.stderr).toContain("cannot be read by Torii");
  expect(result.status).toBe(1);
});
