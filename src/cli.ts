#!/usr/bin/env node
/**
 * The `torii` binary: the operator's CLI. (With no arguments it will serve MCP
 * on stdio; the server lands with the pipeline issue.)
 *
 * Commands that take an agent-style argv (`policy check … -- <args…>`) receive
 * the tokens after the first `--` untouched: they are split off before
 * commander parses options, so no token after `--` is ever read as a Torii flag.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { runConfigDir } from "./commands/config-dir.js";
import { runInit } from "./commands/init.js";
import { reportFailure } from "./commands/operator-context.js";
import { runPolicyCheck } from "./commands/policy-check.js";
import { runPolicyShow } from "./commands/policy-show.js";

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

/** Splits `argv` at the first `--`: Torii's own words, and the agent-style argv after it. */
function splitAtDoubleDash(argv: readonly string[]): { own: string[]; passthrough: string[] | undefined } {
  const at = argv.indexOf("--");
  return at === -1 ? { own: [...argv], passthrough: undefined } : { own: argv.slice(0, at), passthrough: argv.slice(at + 1) };
}

function buildProgram(passthrough: readonly string[] | undefined, setExit: (code: number) => void): Command {
  const program = new Command("torii")
    .description("Policy-gated command broker for AI agents")
    .version(packageVersion(), "-V, --version")
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });

  program
    .command("init")
    .description("create the configuration root and settings.yaml (never overwrites)")
    .action(() => {
      setExit(runInit());
    });

  program
    .command("config-dir")
    .description("print the configuration root")
    .action(() => {
      setExit(runConfigDir());
    });

  const policy = program.command("policy").description("inspect the operator's rules");
  policy
    .command("show")
    .description("print the shared, target and effective rules of a provider")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .option("--json", "machine-readable output")
    .action((tool: string, target: string | undefined, options: { json?: boolean }) => {
      setExit(runPolicyShow(tool, target, options));
    });
  policy
    .command("check")
    .description("explain what policy alone decides for an argv (exit 0 accept, 1 deny, 2 unresolved)")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .usage("<tool> [target] -- <args…>")
    .action((tool: string, target: string | undefined) => {
      setExit(runPolicyCheck(tool, target, passthrough));
    });

  return program;
}

function main(argv: readonly string[]): number {
  const { own, passthrough } = splitAtDoubleDash(argv);
  let exitCode = 0;
  const program = buildProgram(passthrough, (code) => {
    exitCode = code;
  });
  if (own.length === 0) {
    program.outputHelp({ error: true });
    process.stderr.write("\ntorii: the MCP server (torii with no arguments) is not available yet in this build.\n");
    return 2;
  }
  try {
    program.parse([...own], { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    return reportFailure(error);
  }
  return exitCode;
}

process.exitCode = main(process.argv.slice(2));
