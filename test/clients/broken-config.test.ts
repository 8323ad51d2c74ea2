import path from "node:path";
import { describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { clientBin, run, scratchHome, toriiAgentInstall } from "./support/real-clients.js";

interface ToolList {
  readonly tools: readonly { name: string }[];
}

interface ToolResult {
  readonly content: readonly { type: string; text: string }[];
}

describe("a configuration that fails to load, seen from the MCP Inspector CLI", () => {
  test("the server offers only the tool that explains the error, and calling it gives file:line:col", async () => {
    const home = scratchHome();
    // `accept` holds a mapping where rules are strings: rules.yaml line 3 is wrong.
    const root = makeConfigTree({
      "providers/demo/provider.yaml": 'version: "1"\nname: demo\ntool: demo\ncommand: /bin/true\nargv:\n  parser: plain\n',
      "providers/demo/rules.yaml": 'version: "1"\naccept:\n  - {not: a rule}\n',
    });
    const config = path.join(home, "inspector.json");
    await toriiAgentInstall("claude-desktop", home, root, ["--config", config]);
    const inspect = (method: readonly string[]): ReturnType<typeof run> =>
      run(clientBin("mcp-inspector-cli"), ["--cli", "--config", config, "--server", "torii", "--method", ...method], { home });

    const listed = await inspect(["tools/list"]);
    expect(listed.status, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as ToolList).tools.map((tool) => tool.name)).toEqual(["torii_config_error"]);
    const called = await inspect(["tools/call", "--tool-name", "torii_config_error"]);
    const text = (JSON.parse(called.stdout) as ToolResult).content.map((part) => part.text).join("\n");
    expect(text).toContain(`${path.join(root, "providers", "demo", "rules.yaml")}:3:`);
  });
});
