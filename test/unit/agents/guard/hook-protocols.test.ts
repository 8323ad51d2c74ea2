/**
 * Each client's hook input in, that client's refusal or silence out: the
 * fields the guard reads and the reply shapes the clients document
 * (docs/guard.md). Anything the guard cannot read blocks.
 */
import { describe, expect, test } from "vitest";
import { byProgram } from "../../../../src/agents/guard/guarded-clis.js";
import { detectClient } from "../../../../src/agents/guard/hook-protocols.js";
import { runGuard } from "../../../../src/agents/guard/run-guard.js";

const GUARDED = { clis: byProgram([{ command: "/usr/local/bin/kubectl", tool: "kube" }]) };
const claude = (command: unknown, tool = "Bash") => JSON.stringify({ hook_event_name: "PreToolUse", tool_name: tool, tool_input: { command } });

describe("Claude Code and Codex (PreToolUse, tool Bash)", () => {
  test("a guarded CLI: exit 2, the reason on stderr names the MCP tool, nothing on stdout", () => {
    const reply = runGuard("claude-code", claude("sudo kubectl get pods"), GUARDED);
    expect(reply.exitCode).toBe(2);
    expect(reply.stdout).toBe("");
    expect(reply.stderr).toContain('Call the MCP tool "kube"');
  });

  test("an ordinary command: exit 0, no output (the client's own approval still applies)", () => {
    expect(runGuard("codex", claude("git status"), GUARDED)).toEqual({ exitCode: 0, stdout: "", stderr: "" });
  });

  test("another tool than the shell is not the guard's business", () => {
    expect(runGuard("claude-code", claude("kubectl", "Read"), GUARDED).exitCode).toBe(0);
  });

  test("Codex's argv form of a command is read as the program and its arguments", () => {
    expect(runGuard("codex", claude(["kubectl", "get", "pods"]), GUARDED).exitCode).toBe(2);
    expect(runGuard("codex", claude(["echo", "kubectl"]), GUARDED).exitCode).toBe(0);
  });
});

describe("Gemini CLI (BeforeTool, run_shell_command)", () => {
  const gemini = (command: string) => JSON.stringify({ hook_event_name: "BeforeTool", tool_name: "run_shell_command", tool_input: { command } });

  test("blocks with exit 2 and the reason on stderr; allows with {} on stdout", () => {
    const blocked = runGuard("gemini-cli", gemini("bash -c 'kubectl get pods'"), GUARDED);
    expect(blocked.exitCode).toBe(2);
    expect(blocked.stderr).toContain("kube");
    expect(runGuard("gemini-cli", gemini("ls"), GUARDED)).toEqual({ exitCode: 0, stdout: "{}\n", stderr: "" });
  });
});

describe("Cursor (beforeShellExecution) and Copilot CLI (preToolUse)", () => {
  test("Cursor reads `command` and refuses with permission deny JSON", () => {
    const reply = runGuard("cursor", JSON.stringify({ hook_event_name: "beforeShellExecution", command: "kubectl get pods", cwd: "/" }), GUARDED);
    expect(reply.exitCode).toBe(0);
    expect(JSON.parse(reply.stdout)).toMatchObject({ permission: "deny", agent_message: expect.stringContaining("kube") as unknown });
  });

  test("Copilot CLI reads toolArgs (a JSON string) and refuses with permissionDecision deny", () => {
    const input = JSON.stringify({ timestamp: 1, cwd: "/", toolName: "bash", toolArgs: JSON.stringify({ command: "env kubectl get pods" }) });
    const reply = runGuard("copilot-cli", input, GUARDED);
    expect(JSON.parse(reply.stdout)).toMatchObject({ permissionDecision: "deny" });
    expect(runGuard("copilot-cli", JSON.stringify({ toolName: "bash", toolArgs: '{"command":"ls"}' }), GUARDED)).toMatchObject({ exitCode: 0, stdout: "" });
  });
});

describe("fail closed", () => {
  test.each([
    ["input that is not JSON", "kubectl get pods", /not JSON/u],
    ["a JSON array", "[]", /not a JSON object/u],
    ["a shell tool without a command", JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {} }), /no shell command/u],
    ["a command line the guard cannot read", claude("echo 'unclosed"), /cannot tell what it runs \(a ' quote is not closed\)/u],
  ])("%s blocks, saying why", (_what, input, reason) => {
    const reply = runGuard("claude-code", input, GUARDED);
    expect(reply.exitCode).toBe(2);
    expect(reply.stderr).toMatch(reason);
  });

  test("input from no known client blocks when no --client was given", () => {
    expect(runGuard(undefined, JSON.stringify({ command: "ls" }), GUARDED).exitCode).toBe(2);
  });

  test("the client is detected from the fields only it sends", () => {
    expect(detectClient({ hook_event_name: "BeforeTool" })).toBe("gemini-cli");
    expect(detectClient({ hook_event_name: "beforeShellExecution" })).toBe("cursor");
    expect(detectClient({ hook_event_name: "PreToolUse" })).toBe("claude-code");
    expect(detectClient({ toolName: "bash" })).toBe("copilot-cli");
  });
});
