/**
 * `torii provider list | upgrade | remove` over a provider directory whose
 * provider.yaml or rules.yaml is a named pipe, and `torii doctor` (which
 * `torii setup` ends with) over an MCP client's file that is one: each command
 * ends at once, naming the file (or keeping it as the operator's), instead of
 * blocking in a read that waits for a writer (the built binary, as a real process: the old
 * code never returned, so such a run fails by the test's timeout and is
 * killed after it). The same for the child CLIs' own files the operator
 * commands read: `~/.aws/config` (doctor, setup's AWS step) and
 * `~/.kube/config` (doctor, `torii target add kubectl`; doctor does not start
 * kubectl for its version then, since kubectl reads that file at start).
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { ensureKubeIdentity } from "../../src/commands/setup/kube-identity.js";
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

/** A root with an aws target (profile dev) and a kubectl target (context c1), and a HOME whose ~/.aws/config and ~/.kube/config hold them. */
async function rootWithTargets(): Promise<{ root: string; home: string }> {
  const root = tempDirectory("torii-child-pipe-root-");
  const home = tempDirectory("torii-child-pipe-home-");
  const env = { TORII_CONFIG_DIR: root, HOME: home };
  for (const provider of ["aws", "kubectl"]) expect((await runCli(["provider", "install", provider, "--preset", "readonly"], env)).status).toBe(0);
  mkdirSync(path.join(home, ".aws"));
  mkdirSync(path.join(home, ".kube"));
  writeFileSync(path.join(home, ".aws", "config"), "[profile dev]\nregion = us-east-1\n");
  writeFileSync(path.join(home, ".kube", "config"), KUBECONFIG("c1"));
  await ensureKubeIdentity(root);
  expect((await runCli(["target", "add", "aws", "dev", "--profile", "dev", "--account-id", "123456789012"], env)).status).toBe(0);
  expect((await runCli(["target", "add", "kubectl", "k1", "--context", "c1", "--provider", "kube-identity"], env)).status).toBe(0);
  return { root, home };
}

function KUBECONFIG(context: string): string {
  return `apiVersion: v1\nkind: Config\ncontexts:\n- name: "${context}"\n  context: {cluster: x, user: y}\nclusters: []\nusers: []\n`;
}

/** Replaces `file` with a named pipe no one writes to. */
function pipeAt(file: string): void {
  rmSync(file);
  execFileSync("mkfifo", ["-m", "600", file]);
}

describe.skipIf(process.platform === "win32")("a named pipe at a child CLI's config file", () => {
  test("doctor reports a named pipe at ~/.aws/config instead of waiting on it", async () => {
    const { root, home } = await rootWithTargets();
    const pipe = path.join(home, ".aws", "config");
    pipeAt(pipe);
    const doctor = await run(["doctor"], root, home);
    expect(doctor.status).not.toBeNull();
    expect(doctor.stdout).toContain(`${pipe}: is not a regular file`);
  });

  test("doctor and target add report a named pipe at ~/.kube/config instead of waiting on it", async () => {
    const { root, home } = await rootWithTargets();
    const pipe = path.join(home, ".kube", "config");
    pipeAt(pipe);
    const [doctor, added] = await Promise.all([
      run(["doctor"], root, home),
      run(["target", "add", "kubectl", "k2", "--context", "c1", "--provider", "kube-identity"], root, home),
    ]);
    expect(doctor.status).not.toBeNull();
    expect(doctor.stdout).toContain(`${pipe}: is not a regular file`);
    // kubectl reads that file even for `version --client`: doctor does not start it (it would wait out the probe's timeout).
    expect(doctor.stdout).toMatch(/warn cli kubectl: .*: its version was not asked: /u);
    expect(added.status).not.toBe(0);
    expect(added.status).not.toBeNull();
    expect(added.stderr).toContain(`${pipe}: is not a regular file`);
  });
});
