/**
 * An agent with a shell must not answer its own approval, grant itself a
 * command or a lease, or edit the rules through Torii's own operator CLI: the
 * guard blocks `torii` in the spellings it blocks a provider's CLI in, with a
 * message that sends the agent to the human, whatever providers are installed.
 */
import { describe, expect, test } from "vitest";
import { byProgram } from "../../../../src/agents/guard/guarded-clis.js";
import { runGuard } from "../../../../src/agents/guard/run-guard.js";

const GUARDED = { clis: byProgram([{ command: "kubectl", tool: "kubectl" }]) };
const NOTHING_INSTALLED = { clis: byProgram([]) };
const claude = (command: string) => JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command } });

describe("the guard keeps the agent's shell away from torii's operator commands", () => {
  test.each([
    "torii approvals approve 0123abcd --once",
    "torii grant add kubectl --exact -- delete ns prod",
    "torii target activate kubectl prod --for 60",
    "sudo torii policy edit kubectl",
    "env TORII_CONFIG_DIR=/tmp/x torii approvals list",
    "/usr/local/bin/torii approvals approve 1",
    "bash -c 'tor\"\"ii approvals approve 1'",
    "echo ok && $(command -v torii) grant add kubectl --exact -- get secrets",
  ])("%s is blocked and the agent is sent to the operator", (line) => {
    for (const guarded of [GUARDED, NOTHING_INSTALLED]) {
      const reply = runGuard("claude-code", claude(line), guarded);
      expect(reply.exitCode, line).toBe(2);
      if (!line.includes("$(")) expect(reply.stderr).toContain("Torii's operator CLI");
    }
  });

  test.each(["echo torii", "grep -r torii docs/", 'git commit -m "torii: approvals"', "ls ~/.config/torii"])("%s is allowed", (line) => {
    expect(runGuard("claude-code", claude(line), GUARDED).exitCode).toBe(0);
  });
});
