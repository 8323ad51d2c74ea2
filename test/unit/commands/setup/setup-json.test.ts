/**
 * `torii setup`'s non-interactive modes print one JSON object with `--json`:
 * the registration (what a client launches) and the kube-identity provider;
 * the wizard itself converses, so `--json` alone is refused.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectUsageError, jsonOutput } from "../../../support/cli-expect.js";
import { CLI_PATH, runCli } from "../../../support/run-cli.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const freshRoot = (): string => path.join(tempDirectory("torii-setup-json-"), "torii");

describe("torii setup --json", () => {
  it("--registration --json: the server entry a client launches, and Claude Code's command line as argv", async () => {
    const root = freshRoot();
    const registration = jsonOutput(await runCli(["setup", "--registration", "--json"], { TORII_CONFIG_DIR: root }));
    const server = { command: process.execPath, args: [CLI_PATH], env: { TORII_CONFIG_DIR: root } };
    expect(registration).toEqual({
      config_root: root,
      server,
      claude_code: ["claude", "mcp", "add", "torii", "-e", `TORII_CONFIG_DIR=${root}`, "--", process.execPath, CLI_PATH],
    });
  });

  it("--kube-identity --json: created once, then reported as existing", async () => {
    const env = { TORII_CONFIG_DIR: freshRoot() };
    expect(jsonOutput(await runCli(["setup", "--kube-identity", "--json"], env))).toEqual({ provider: "kube-identity", created: true });
    expect(jsonOutput(await runCli(["setup", "--kube-identity", "--json"], env))).toEqual({ provider: "kube-identity", created: false });
  });

  it("refuses --json for the wizard", async () => {
    expectUsageError(await runCli(["setup", "--json"], { TORII_CONFIG_DIR: freshRoot() }), "--json goes with --registration or --kube-identity");
  });
});
