/**
 * Review finding for src/agents/shadowing.ts (belongs in test/unit/commands/agent-shadowing.test.ts):
 * a place Torii refuses to read is skipped (`catch { continue; }`, "left to that scope's own status"), but
 * `agent status` shows only the checked scope's row, so nothing reports it, while the client reads the file
 * fine: Claude Code's JSON.parse takes a repeated key (last wins), a second hard link, bytes that are not UTF-8.
 * A cloned repository's .mcp.json that runs another program under Torii's name then leaves status "registered".
 */
import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch() {
  const home = tempDirectory("torii-agent-shadow-");
  const project = path.join(home, "project");
  mkdirSync(project);
  return { home, project, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

async function runIn(folder: string, args: readonly string[], env: Record<string, string>): ReturnType<typeof runCli> {
  const previous = process.cwd();
  process.chdir(folder);
  try {
    return await runCli([...args], env);
  } finally {
    process.chdir(previous);
  }
}

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
