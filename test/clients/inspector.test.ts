import path from "node:path";
import { describe, expect, test } from "vitest";
import { clientBin, demoConfigRoot, run, scratchHome, toriiAgentInstall } from "./support/real-clients.js";

/** Runs the Inspector's CLI against the server entry `torii agent install` wrote into `config`. */
function inspect(home: string, config: string, method: readonly string[]): ReturnType<typeof run> {
  return run(clientBin("mcp-inspector-cli"), ["--cli", "--config", config, "--server", "torii", "--method", ...method], { home });
}

describe("MCP Inspector CLI (real, --cli mode)", () => {
  test("lists Torii's tools and calls an allowed command from the entry `torii agent install` wrote", async () => {
    const home = scratchHome();
    const config = path.join(home, "inspector.json");
    await toriiAgentInstall("claude-desktop", home, demoConfigRoot(), ["--config", config]);
    const listed = await inspect(home, config, ["tools/list"]);
    expect(listed.status, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(["demo", "torii_policy"]);
    const called = await inspect(home, config, ["tools/call", "--tool-name", "demo", "--tool-arg", 'args=["hello"]']);
    expect(called.status, called.stderr).toBe(0);
    const result = JSON.parse(called.stdout) as { isError?: boolean; structuredContent: { decision: { result: string }; execution: { stdout: string } } };
    expect(result.isError).not.toBe(true);
    expect(result.structuredContent.decision.result).toBe("allow");
    expect(result.structuredContent.execution.stdout).toBe("torii-demo-ok hello\n");
  });

  test("a command outside the rules is denied through the same client", async () => {
    const home = scratchHome();
    const config = path.join(home, "inspector.json");
    await toriiAgentInstall("claude-desktop", home, demoConfigRoot(), ["--config", config]);
    const called = await inspect(home, config, ["tools/call", "--tool-name", "demo", "--tool-arg", 'args=["goodbye"]']);
    const result = JSON.parse(called.stdout) as { isError?: boolean; structuredContent: { decision: { result: string }; execution?: unknown } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.decision.result).toBe("deny");
    expect(result.structuredContent.execution).toBeUndefined();
  });
});
