/**
 * `torii guard` as the clients run it: the built binary as a real process,
 * the client's hook JSON on stdin, judged by exit code and output. The Gemini
 * case runs the exact command line the hook config builder writes, through
 * /bin/sh, as clients run hooks.
 */
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, test } from "vitest";
import { guardCommandLine } from "../../src/agents/guard/hook-config.js";
import { makeConfigTree } from "../support/config-tree.js";
import { CLI_PATH } from "../support/run-cli.js";

let root: string;

beforeAll(() => {
  root = makeConfigTree({
    "providers/kube/provider.yaml": 'version: "1"\nname: kube\ntool: kube\ncommand: /usr/local/bin/kubectl\n',
    "providers/kube/rules.yaml": 'version: "1"\n',
  });
});

function guard(args: readonly string[], input: string) {
  const run = spawnSync(process.execPath, [CLI_PATH, "guard", ...args], {
    input,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", TORII_CONFIG_DIR: root },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const claudeInput = (command: string) =>
  JSON.stringify({
    session_id: "s",
    transcript_path: "/t",
    cwd: "/",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command, description: "d" },
  });

describe("torii guard, Claude Code's PreToolUse protocol", () => {
  test("a wrapped kubectl is refused: exit 2, the reason (naming the MCP tool) on stderr, stdout empty", () => {
    const run = guard(["--client", "claude-code"], claudeInput("cd /tmp && sudo -E timeout 5 kubectl get pods"));
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain('Call the MCP tool "kube"');
  });

  test("an ordinary command passes: exit 0, no output", () => {
    expect(guard(["--client", "claude-code"], claudeInput('git commit -m "kubectl"'))).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  test("an unknown option blocks rather than failing open", () => {
    const run = guard(["--client", "claude"], claudeInput("ls"));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("unknown --client");
  });
});

describe("torii guard, Gemini CLI's BeforeTool protocol, started by the builder's command line", () => {
  // The configuration root reaches the guard through --config only, as the installed hook passes it.
  const viaShell = (command: string) =>
    spawnSync("/bin/sh", ["-c", guardCommandLine("gemini-cli", { node: process.execPath, toriiEntry: CLI_PATH, configDir: root })], {
      input: JSON.stringify({ hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command } }),
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent" },
    });

  test("refused: exit 2 with the reason on stderr; allowed: exit 0 with {} on stdout", () => {
    const blocked = viaShell("bash -c 'k\"ube\"ctl get pods'");
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toContain('MCP tool "kube"');
    const allowed = viaShell("ls -la");
    expect(allowed.status).toBe(0);
    expect(JSON.parse(allowed.stdout)).toEqual({});
  });
});
