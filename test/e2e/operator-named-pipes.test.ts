/**
 * `torii provider list | upgrade | remove` over a provider directory whose
 * provider.yaml or rules.yaml is a named pipe, and `torii doctor` (which
 * `torii setup` ends with) over an MCP client's file that is one: each command
 * ends at once, naming the file (or keeping it as the operator's), instead of
 * blocking in a read that waits for a writer (the built binary, as a real process: the old
 * code never returned, so such a run fails by the test's timeout and is
 * killed after it).
 */
import { execFile, execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { CLI_PATH, runCli, type CliResult } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

/** A configuration root with aws installed, whose `file` under providers/aws is replaced by a named pipe. */
async function rootWithPipe(file: "provider.yaml" | "rules.yaml"): Promise<string> {
  const root = tempDirectory("torii-provider-pipe-");
  const installed = await runCli(["provider", "install", "aws", "--preset", "readonly"], { TORII_CONFIG_DIR: root });
  expect(installed.status).toBe(0);
  const pipe = path.join(root, "providers", "aws", file);
  rmSync(pipe);
  execFileSync("mkfifo", ["-m", "600", pipe]);
  return root;
}

/** Runs the built binary; the child is killed when the test ends, whatever happened (a blocked read ignores SIGTERM). */
function run(args: readonly string[], root: string, home = process.env.HOME ?? "/nonexistent"): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI_PATH, ...args],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: home, TORII_CONFIG_DIR: root }, shell: false },
      (error, stdout, stderr) => {
        resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr });
      },
    );
    onTestFinished(() => {
      child.kill("SIGKILL");
    });
  });
}

describe.skipIf(process.platform === "win32")("a named pipe in an installed provider's directory", () => {
  test("provider list and provider upgrade refuse a named pipe at provider.yaml, naming it, instead of waiting on it", async () => {
    const root = await rootWithPipe("provider.yaml");
    const pipe = path.join(root, "providers", "aws", "provider.yaml");
    const [list, upgrade] = await Promise.all([run(["provider", "list"], root), run(["provider", "upgrade", "aws"], root)]);
    for (const result of [list, upgrade]) {
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(`${pipe}: is not a regular file`);
    }
  });

  test("provider remove keeps a named pipe at rules.yaml as the operator's and refuses without --force", async () => {
    const root = await rootWithPipe("rules.yaml");
    const removed = await run(["provider", "remove", "aws"], root);
    expect(removed.status).not.toBe(0);
    expect(removed.stderr).toContain(path.join(root, "providers", "aws", "rules.yaml"));
    expect(removed.stderr).toContain("rerun with --force");
  });

  test("doctor reports a named pipe at an MCP client's file (Claude Code's ~/.claude.json) instead of waiting on it", async () => {
    const root = await rootWithPipe("rules.yaml");
    rmSync(path.join(root, "providers", "aws", "rules.yaml"));
    const home = tempDirectory("torii-home-pipe-");
    const pipe = path.join(home, ".claude.json");
    execFileSync("mkfifo", ["-m", "600", pipe]);
    const doctor = await run(["doctor"], root, home);
    expect(doctor.stdout).toContain(`${pipe} cannot be read`);
    expect(doctor.stdout).toContain("is not a regular file");
  });
});
