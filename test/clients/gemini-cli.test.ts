import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { clientBin, demoConfigRoot, run, scratchHome, toriiAgentInstall } from "./support/real-clients.js";

describe("Gemini CLI (real `gemini`, no API key)", () => {
  test("after `torii agent install gemini-cli`, `gemini mcp list` shows Torii connected in a trusted folder (and disabled in an untrusted one)", async () => {
    const home = scratchHome();
    const project = path.join(home, "project");
    mkdirSync(project);
    await toriiAgentInstall("gemini-cli", home, demoConfigRoot());
    const untrusted = await run(clientBin("gemini"), ["mcp", "list"], { home, cwd: project });
    // gemini prints the list on stderr.
    expect(untrusted.stdout + untrusted.stderr).toMatch(/torii: .* - Disabled/u);
    writeFileSync(path.join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
    const trusted = await run(clientBin("gemini"), ["mcp", "list"], { home, cwd: project });
    expect(trusted.stdout + trusted.stderr).toMatch(/✓ torii: .*dist\/cli\.js mcp \(stdio\) - Connected/u);
  });
});
