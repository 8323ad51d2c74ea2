import { cpSync, existsSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, onTestFinished, test } from "vitest";
import { clientBin, codeScratch, NPM_ENV, run, scratchHome } from "./support/real-clients.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string }).version;

interface PackReport {
  readonly filename: string;
  readonly files: readonly { path: string }[];
}

describe("the published package (npm pack → global install → torii agent install claude-code)", () => {
  test("a global install from the tarball runs torii, registers it with Claude Code, and Claude Code connects", async () => {
    const scratch = codeScratch("torii-pack-");
    onTestFinished(() => rmSync(scratch, { recursive: true, force: true }));
    // dist/ is already built (the suite's global setup requires it), so prepack's rebuild is skipped.
    const packed = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], { home: os.homedir(), cwd: REPO, env: NPM_ENV });
    expect(packed.status, packed.stderr).toBe(0);
    const [report] = JSON.parse(packed.stdout) as PackReport[];
    const files = (report?.files ?? []).map((file) => file.path);
    for (const needed of [
      "LICENSE",
      "README.md",
      "package.json",
      "dist/cli.cjs",
      "dist/cli.js",
      "dist/server/serve.cjs",
      "dist/server/sts-probe.cjs",
      "dist/server/child-host.js",
      "dist/activate/direct-activate.cjs",
      "rules.example.yaml",
      "docs/agents.md",
      "providers/kubectl/provider.yaml",
    ]) {
      expect(files).toContain(needed);
    }
    expect(
      files.filter(
        (file) =>
          file.startsWith("dist/") &&
          !file.startsWith("dist/chunks/") &&
          !file.startsWith("dist/server/") &&
          !file.startsWith("dist/activate/") &&
          !file.startsWith("dist/cli."),
      ),
    ).toEqual([]);

    const prefix = path.join(scratch, "prefix");
    const installed = await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", path.join(scratch, report?.filename ?? "")], {
      home: os.homedir(),
      env: NPM_ENV,
    });
    expect(installed.status, installed.stderr).toBe(0);
    // Everything Torii runs is in its bundles: the package depends on nothing, so a global install fetches no other package.
    expect(existsSync(path.join(prefix, "lib", "node_modules", "torii-mcp", "node_modules"))).toBe(false);
    expect(readdirSync(path.join(prefix, "lib", "node_modules"))).toEqual(["torii-mcp"]);
    const torii = path.join(prefix, "bin", "torii");
    const home = scratchHome();
    const inHome = { home, env: { PATH: `${path.join(prefix, "bin")}${path.delimiter}${process.env.PATH ?? ""}` } };

    expect((await run(torii, ["--version"], inHome)).stdout.trim()).toBe(VERSION);
    // The package's own name is the same command (what `npx torii-mcp` runs).
    expect((await run(path.join(prefix, "bin", "torii-mcp"), ["--version"], inHome)).stdout.trim()).toBe(VERSION);
    expect((await run(torii, ["init"], inHome)).status).toBe(0);
    const root = path.join(home, ".config", "torii");
    // `torii provider install` belongs to another change; until it exists, copy the bundled provider as the README says.
    const hasProviderCommand = /^ {2}provider\b/mu.test((await run(torii, ["--help"], inHome)).stdout);
    if (hasProviderCommand) expect((await run(torii, ["provider", "install", "kubectl"], inHome)).status).toBe(0);
    else cpSync(path.join(prefix, "lib", "node_modules", "torii-mcp", "providers", "kubectl"), path.join(root, "providers", "kubectl"), { recursive: true });

    const registered = await run(torii, ["agent", "install", "claude-code", "--json"], inHome);
    expect(registered.status, registered.stderr).toBe(0);
    const claudeJson = JSON.parse(readFileSync(path.join(home, ".claude.json"), "utf8")) as { mcpServers: { torii: { args: string[] } } };
    expect(claudeJson.mcpServers.torii.args[0]).toBe(path.join(realpathSync(path.join(prefix, "lib", "node_modules", "torii-mcp")), "dist", "cli.js"));

    const listed = await run(clientBin("claude"), ["mcp", "list"], inHome);
    expect(listed.stdout).toMatch(/^torii: .*torii-mcp\/dist\/cli\.js mcp - ✔ Connected$/mu);
  });
});
