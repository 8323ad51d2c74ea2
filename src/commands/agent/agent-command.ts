/**
 * Declares `torii agent install|uninstall|status`. Light on purpose: the client
 * table and the file editors (agent.ts, src/agents/) load only when one runs.
 */
import type { Command } from "commander";
import type { AgentOptions } from "./agent.js";

/** Adds the options every `agent` subcommand takes. */
function withTargetOptions(command: Command): Command {
  return command
    .option("--scope <scope>", "user (all projects) or project (the current folder); default: the client's first")
    .option("--config <path>", "edit this file instead of the client's usual one")
    .option("--json", "machine-readable output")
    .option("--guard", "install: also register `torii guard` as the client's pre-tool hook; status: require it")
    .option("--force", "install: replace, uninstall: remove an entry under Torii's name that starts another program");
}

/** Adds the `agent` group to the operator's program. */
export function registerAgentCommand(program: Command, setExit: (code: number) => void): void {
  const agent = program.command("agent").description("register Torii with an MCP client (Claude Code, Codex, Gemini CLI, …)");
  withTargetOptions(agent.command("install").description("write Torii's entry into the client's configuration").argument("<client>", "client id")).action(
    async (client: string, options: AgentOptions) => {
      const { runAgentInstall } = await import("./agent.js");
      setExit(await runAgentInstall(client, options));
    },
  );
  withTargetOptions(
    agent.command("uninstall").description("remove Torii's entry (only Torii's) from the client's configuration").argument("<client>", "client id"),
  ).action(async (client: string, options: AgentOptions) => {
    const { runAgentUninstall } = await import("./agent.js");
    setExit(await runAgentUninstall(client, options));
  });
  withTargetOptions(
    agent
      .command("status")
      .description("say, per client, whether Torii is registered, missing or outdated")
      .argument("[client]", "client id (default: every client)"),
  ).action(async (client: string | undefined, options: AgentOptions) => {
    const { runAgentStatus } = await import("./agent.js");
    setExit(await runAgentStatus(client, options));
  });
}
