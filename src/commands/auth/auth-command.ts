/**
 * Declares `torii auth login|status|logout`. Light on purpose: the prompts,
 * the registry and the session store are imported only when one runs.
 */
import type { Command } from "commander";
import type { JsonOption } from "../shared/operator-output.js";
import type { AuthLoginOptions } from "./login.js";

/** Adds `auth login|status|logout` to the operator's program. */
export function registerAuthCommand(program: Command, setExit: (code: number) => void): void {
  const auth = program.command("auth").description("credentials Torii stores for providers with auth.strategy: environment");
  auth
    .command("login")
    .description("prompt for the provider's auth fields, validate them, and only then replace the stored session")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias (required for a target-aware provider)")
    .option("--from-env <names...>", "take these fields from the environment instead of prompting")
    .option("--stdin", "read the fields as .env text from standard input instead of prompting")
    .option("--json", "machine-readable output")
    .action(async (tool: string, target: string | undefined, options: AuthLoginOptions) => {
      const { runAuthLogin } = await import("./login.js");
      setExit(await runAuthLogin(tool, target, options, { input: process.stdin, output: process.stderr }));
    });
  auth
    .command("status")
    .description("valid / expired / unchecked / missing for each stored session, and when it was checked (never values)")
    .argument("[tool]", "provider tool name")
    .option("--json", "machine-readable output")
    .action(async (tool: string | undefined, options: JsonOption) => {
      const { runAuthStatus } = await import("./status-logout.js");
      setExit(runAuthStatus(tool, options));
    });
  auth
    .command("logout")
    .description("delete the stored session of a provider (or target)")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .option("--json", "machine-readable output")
    .action(async (tool: string, target: string | undefined, options: JsonOption) => {
      const { runAuthLogout } = await import("./status-logout.js");
      setExit(await runAuthLogout(tool, target, options));
    });
}
