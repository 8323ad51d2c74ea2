/**
 * The operator's CLI: one commander program, one file per subcommand under
 * src/commands/. Commands that take an agent-style argv (`policy check … --
 * <args…>`) receive the tokens after the first `--` untouched: they are split
 * off before commander parses options, so no token after `--` is ever read as
 * a Torii flag. Commands that change state files (leases, grants) are async,
 * so the program is parsed with parseAsync.
 *
 * Start-up cost: this file and the group declarations are light; each
 * command's implementation (registry, stores, grammar, zod, yaml) is imported
 * only when that command runs, and `--version` is answered by src/cli.ts
 * without loading this file at all.
 */
import { Command, CommanderError } from "commander";
import { registerAgentCommand } from "./agent/agent-command.js";
import { registerApprovalsCommand } from "./approvals/approvals-command.js";
import { registerAuditCommand } from "./audit/audit-command.js";
import { registerAuthCommand } from "./auth/auth-command.js";
import { registerGrantCommand } from "./grant/grant-command.js";
import { registerGuardCommand } from "./guard/guard-command.js";
import { registerProviderCommand } from "./provider/provider-command.js";
import { EXIT_USAGE, reportFailure } from "./shared/operator-context.js";
import { registerTargetCommand } from "./target/target.js";

/** Splits `argv` at the first `--`: Torii's own words, and the agent-style argv after it. */
function splitAtDoubleDash(argv: readonly string[]): { own: string[]; passthrough: string[] | undefined } {
  const at = argv.indexOf("--");
  return at === -1 ? { own: [...argv], passthrough: undefined } : { own: argv.slice(0, at), passthrough: argv.slice(at + 1) };
}

/** The operator's program with every command declared (their implementations load when one runs). */
export function buildProgram(version: string, passthrough: readonly string[] | undefined, setExit: (code: number) => void): Command {
  const program = new Command("torii")
    .addHelpText("after", "\nWith no command (or `torii mcp`), torii serves MCP on stdio.")
    .description("Policy-gated command broker for AI agents")
    .version(version, "-V, --version")
    .exitOverride()
    .configureOutput({
      writeErr: (text) => process.stderr.write(text),
      outputError: (text, write) => {
        write(`torii: ${text.replace(/^error: /u, "")}`);
      },
    });

  program
    .command("init")
    .description("create the configuration root and settings.yaml (never overwrites)")
    .option("--json", "machine-readable output")
    .action(async (options: { json?: boolean }) => {
      const { runInit } = await import("./setup/init.js");
      setExit(runInit(options));
    });

  program
    .command("setup")
    .description("interactive wizard: providers, targets, rules, client registration (needs a terminal)")
    .option("--registration", "print the MCP client registration lines and stop (no terminal needed)")
    .option("--kube-identity", "create the kube-identity provider kubectl targets use, and stop (no terminal needed)")
    .option("--json", "machine-readable output (with --registration or --kube-identity)")
    .action(async (options: { registration?: boolean; kubeIdentity?: boolean; json?: boolean }) => {
      const { runSetup } = await import("./setup/setup.js");
      setExit(await runSetup(options));
    });

  program
    .command("config-dir")
    .description("print the configuration root")
    .option("--json", "machine-readable output")
    .action(async (options: { json?: boolean }) => {
      const { runConfigDir } = await import("./setup/config-dir.js");
      setExit(runConfigDir(options));
    });

  const policy = program.command("policy").description("inspect and edit the operator's rules");
  policy
    .command("show")
    .description("print the shared, target and effective rules of a provider")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .option("--json", "machine-readable output")
    .action(async (tool: string, target: string | undefined, options: { json?: boolean }) => {
      const { runPolicyShow } = await import("./policy/policy-show.js");
      setExit(runPolicyShow(tool, target, options));
    });
  policy
    .command("edit")
    .description("edit a rules file in $VISUAL/$EDITOR; validate, show the change and its simulation, then replace it")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias (its own rules.yaml)")
    .option("--create", "start a target's own rules.yaml (it replaces the provider's accepts for that target)")
    .option("--dry-run", "validate and show the change, replace nothing")
    .option("--json", "machine-readable output")
    .action(async (tool: string, target: string | undefined, options: { create?: boolean; dryRun?: boolean; json?: boolean }) => {
      const { runPolicyEdit } = await import("./policy/policy-edit.js");
      setExit(await runPolicyEdit(tool, target, options));
    });
  policy
    .command("check")
    .description("explain what policy alone decides for an argv (exit 0 accept, 1 deny, 2 unresolved)")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .usage("<tool> [target] -- <args…>")
    .action(async (tool: string, target: string | undefined) => {
      const { runPolicyCheck } = await import("./policy/policy-check.js");
      setExit(runPolicyCheck(tool, target, passthrough));
    });

  registerAuditCommand(program, setExit);
  registerTargetCommand(program, setExit);
  registerGrantCommand(program, passthrough, setExit);
  registerAuthCommand(program, setExit);
  registerAgentCommand(program, setExit);
  registerGuardCommand(program, setExit);
  registerApprovalsCommand(program, setExit);
  registerProviderCommand(program, setExit);

  program
    .command("doctor")
    .description("check what an MCP client will see; each problem with its fix (exit 1 when one would stop a call)")
    .option("--json", "machine-readable output")
    .action(async (options: { json?: boolean }) => {
      const { runDoctor } = await import("./doctor/doctor.js");
      setExit(await runDoctor(options));
    });

  return program;
}

/**
 * Runs one operator command; resolves to the process exit code. A usage error
 * commander finds (an unknown option, a missing argument) exits with
 * EXIT_USAGE like every other bad input; help and --version exit 0.
 */
export async function runOperatorCommand(version: string, argv: readonly string[]): Promise<number> {
  const { own, passthrough } = splitAtDoubleDash(argv);
  let exitCode = 0;
  const program = buildProgram(version, passthrough, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...own], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
    return reportFailure(error);
  }
  return exitCode;
}
