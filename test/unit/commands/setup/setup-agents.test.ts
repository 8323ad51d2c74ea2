/**
 * The setup wizard's client step registers each client the operator picks: a
 * refusal for one (runAgentInstall throws OperatorError for a launch the trust
 * check refuses, ConfigError for a file that does not parse) is reported, and
 * the step goes on with the others instead of stopping the wizard part-way.
 */
import { describe, expect, test, vi } from "vitest";
import { ConfigError } from "../../../../src/config/errors.js";
import { OperatorError } from "../../../../src/commands/shared/operator-context.js";

const installed: string[] = [];

vi.mock("@inquirer/prompts", () => ({ checkbox: vi.fn(() => Promise.resolve(["claude-code", "codex", "cursor"])) }));
vi.mock("../../../../src/agents/registration.js", () => ({ inspectRegistration: vi.fn(() => Promise.resolve({ state: "missing", reasons: [] })) }));
vi.mock("../../../../src/commands/agent/agent.js", () => ({
  runAgentInstall: vi.fn((id: string) => {
    if (id === "claude-code")
      return Promise.reject(new OperatorError("not registering this Torii, nothing was written:\n  dist/cli.js lies in the folder this runs from"));
    if (id === "codex") return Promise.reject(new ConfigError("/home/ann/.codex/config.toml", "does not parse"));
    installed.push(id);
    return Promise.resolve(0);
  }),
}));

describe("torii setup's client step", () => {
  test("a client whose install is refused is reported and the others are still registered", async () => {
    const { agentStep } = await import("../../../../src/commands/setup/setup-agents.js");
    const said: string[] = [];
    await agentStep("/home/ann/.config/torii", (...lines) => said.push(...lines));
    expect(installed).toEqual(["cursor"]);
    expect(said.join("\n")).toContain("claude-code: not registered: not registering this Torii");
    expect(said.join("\n")).toContain("codex: not registered:");
  });
});
