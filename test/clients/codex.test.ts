import { describe, expect, test } from "vitest";
import { CodexAppServer } from "./support/codex-app-server.js";
import { clientBin, demoConfigRoot, run, scratchHome, toriiAgentInstall } from "./support/real-clients.js";

interface ServerStatus {
  readonly name: string;
  readonly tools: Record<string, { name: string }>;
}

interface ToolResult {
  readonly isError?: boolean;
  readonly structuredContent?: { decision: { result: string }; execution?: { stdout: string } };
}

describe("Codex (real `codex app-server`, no API key)", () => {
  test("after `torii agent install codex`, Codex lists Torii's tools and calls one through app-server", async () => {
    const home = scratchHome();
    await toriiAgentInstall("codex", home, demoConfigRoot());
    const listed = await run(clientBin("codex"), ["mcp", "list", "--json"], { home });
    const entry = (JSON.parse(listed.stdout) as { name: string; enabled: boolean }[]).find((server) => server.name === "torii");
    expect(entry?.enabled).toBe(true);

    const codex = new CodexAppServer(clientBin("codex"), home);
    try {
      await codex.request("initialize", { clientInfo: { name: "torii-tests", version: "0" } });
      codex.notify("initialized");
      const { thread } = await codex.request<{ thread: { id: string } }>("thread/start", { cwd: home });
      const status = await codex.request<{ data: ServerStatus[] }>("mcpServerStatus/list", {});
      const torii = status.data.find((server) => server.name === "torii");
      expect(Object.keys(torii?.tools ?? {}).sort()).toEqual(["demo", "torii_policy"]);

      const allowed = await codex.request<ToolResult>("mcpServer/tool/call", {
        server: "torii",
        threadId: thread.id,
        tool: "demo",
        arguments: { args: ["hello"] },
      });
      expect(allowed.isError).not.toBe(true);
      expect(allowed.structuredContent?.execution?.stdout).toBe("torii-demo-ok hello\n");
      const denied = await codex.request<ToolResult>("mcpServer/tool/call", {
        server: "torii",
        threadId: thread.id,
        tool: "demo",
        arguments: { args: ["goodbye"] },
      });
      expect(denied.isError).toBe(true);
      expect(denied.structuredContent?.decision.result).toBe("deny");
    } finally {
      await codex.close();
    }
  });
});
