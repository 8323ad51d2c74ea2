/**
 * An entry named `torii` that starts another program (an agent's `npx -y
 * look-alike`, another product's server, a remote URL) is not Torii's: for
 * every client, `install` does not replace it and `uninstall` does not remove
 * it (nothing written, no backup) unless `--force`, and `status` says
 * `foreign` naming what it runs instead of calling it an outdated Torii. An
 * earlier Torii's entry (another node, another checkout) is still replaced.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { stringify as toToml } from "smol-toml";
import { describe, expect, test } from "vitest";
import { CLIENTS } from "../../../src/agents/clients.js";
import type { ClientAdapter } from "../../../src/agents/adapter.js";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-foreign-");
  return { home, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

/** A client file whose entry under Torii's name is `entry`, beside another server. */
function fileText(client: ClientAdapter, entry: Record<string, unknown>): string {
  const [key = "", name = ""] = client.entryPath;
  const document = { [key]: { other: { command: "/usr/bin/true" }, [name]: entry } };
  return client.format === "toml" ? toToml(document) : `${JSON.stringify(document, null, 2)}\n`;
}

/** The entry a look-alike would plant, in the client's shape (opencode: one command array). */
function lookAlike(client: ClientAdapter): Record<string, unknown> {
  return client.id === "opencode" ? { type: "local", command: ["npx", "-y", "torii-mcp-helper"] } : { command: "npx", args: ["-y", "torii-mcp-helper"] };
}

const backupsOf = (file: string): string[] => readdirSync(path.dirname(file)).filter((name) => name.startsWith(`${path.basename(file)}.torii-backup`));

describe("an entry named torii that starts another program", () => {
  test.each(CLIENTS.map((client) => [client.id, client] as const))(
    "%s: not replaced, not removed, reported as foreign; --force replaces it",
    async (id, client) => {
      const { home, env } = scratch();
      const file = path.join(home, client.format === "toml" ? "config.toml" : "config.json");
      const text = fileText(client, lookAlike(client));
      writeFileSync(file, text, { mode: 0o600 });

      const status = await runCli(["agent", "status", id, "--config", file, "--json"], env);
      expect(status.status).toBe(1);
      const [row] = (JSON.parse(status.stdout) as { clients: { state: string; reasons: string[] }[] }).clients;
      expect(row?.state).toBe("foreign");
      expect(row?.reasons.join(" ")).toContain('"npx" "-y" "torii-mcp-helper"');

      for (const verb of ["install", "uninstall"]) {
        const refused = await runCli(["agent", verb, id, "--config", file], env);
        expect(refused.status, `${verb}: ${refused.stdout}`).not.toBe(0);
        expect(refused.stderr).toContain("is not Torii's entry");
        expect(readFileSync(file, "utf8")).toBe(text);
        expect(backupsOf(file)).toEqual([]);
      }

      const forced = await runCli(["agent", "install", id, "--config", file, "--force"], env);
      expect(forced.status, forced.stderr).toBe(0);
      expect((await runCli(["agent", "status", id, "--config", file], env)).status).toBe(0);
      expect(readFileSync(file, "utf8")).toContain("other");
    },
  );

  test.each([
    ["a remote server", { type: "http", url: "https://example.invalid/mcp" }],
    ["a shell script", { command: "/bin/sh", args: ["-c", "node /x/dist/cli.js mcp"] }],
    ["a cli.js that is not in a dist folder", { command: "/usr/bin/node", args: ["/home/u/cli.js", "mcp"] }],
    ["Torii's script with more arguments", { command: "/usr/bin/node", args: ["/x/dist/cli.js", "mcp", "--require", "/x/hook.js"] }],
  ])("%s is foreign too", async (_name, entry) => {
    const { home, env } = scratch();
    const file = path.join(home, ".mcp.json");
    const text = fileText(CLIENTS.find((client) => client.id === "claude-code") as ClientAdapter, entry);
    writeFileSync(file, text);
    const result = await runCli(["agent", "install", "claude-code", "--config", file], env);
    expect(result.status).not.toBe(0);
    expect(readFileSync(file, "utf8")).toBe(text);
  });

  test.each([
    ["an earlier Torii's registration", { type: "stdio", command: "/old/node/bin/node", args: ["/old/lib/node_modules/torii-mcp/dist/cli.js", "mcp"] }],
    ["Torii's bin by name", { command: "torii", args: ["mcp"] }],
    ["torii setup --registration's hand-written line (no mcp)", { command: "/usr/bin/node", args: ["/opt/torii/dist/cli.js"] }],
    ["Torii's bin by path, no arguments", { command: "/usr/local/bin/torii-mcp" }],
  ])("%s is Torii's: outdated, replaced and removed without --force", async (_name, entry) => {
    const { home, env } = scratch();
    const file = path.join(home, ".mcp.json");
    writeFileSync(file, fileText(CLIENTS.find((client) => client.id === "claude-code") as ClientAdapter, entry));
    const status = await runCli(["agent", "status", "claude-code", "--config", file, "--json"], env);
    expect((JSON.parse(status.stdout) as { clients: { state: string }[] }).clients[0]?.state).toBe("outdated");
    const installed = await runCli(["agent", "install", "claude-code", "--config", file], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(existsSync(`${file}.torii-backup`)).toBe(true);
  });
});
