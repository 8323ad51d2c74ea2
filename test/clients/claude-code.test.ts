import { describe, expect, test } from "vitest";
import { clientBin, demoConfigRoot, run, scratchHome, toriiAgentInstall } from "./support/real-clients.js";

describe("Claude Code (real `claude`, no API key)", () => {
  test("after `torii agent install claude-code`, `claude mcp list` shows Torii connected", async () => {
    const home = scratchHome();
    const root = demoConfigRoot();
    const before = await run(clientBin("claude"), ["mcp", "list"], { home });
    expect(before.stdout).not.toMatch(/torii/u);
    await toriiAgentInstall("claude-code", home, root);
    const listed = await run(clientBin("claude"), ["mcp", "list"], { home });
    expect(listed.stdout).toMatch(/^torii: .*dist\/cli\.js mcp - ✔ Connected$/mu);
  });

  test("a project-scope entry (.mcp.json) is read too", async () => {
    const home = scratchHome();
    await toriiAgentInstall("claude-code", home, demoConfigRoot(), ["--scope", "project"]);
    const listed = await run(clientBin("claude"), ["mcp", "get", "torii"], { home });
    expect(listed.stdout).toMatch(/Scope: Project config/u);
    expect(listed.stdout).toMatch(/Type: stdio/u);
  });
});
