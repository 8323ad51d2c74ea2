/**
 * `torii guard`: the pre-tool hook a client runs before each shell command
 * (docs/guard.md). Declared here; the implementation loads only when it runs.
 */
import { Option, type Command } from "commander";

/** The clients whose hook protocol `torii guard` speaks (kept equal to GUARD_CLIENTS by a test). */
export const GUARD_CLIENT_CHOICES = ["claude-code", "codex", "gemini-cli", "cursor", "copilot-cli"];

export function registerGuardCommand(program: Command, setExit: (code: number) => void): void {
  program
    .command("guard")
    .description("pre-tool hook: block shell commands that run a CLI Torii brokers (reads the hook's JSON on stdin)")
    .addOption(new Option("--client <client>", "the hook protocol to speak (detected from the input when omitted)").choices(GUARD_CLIENT_CHOICES))
    .option("--config <dir>", "the configuration root (default: TORII_CONFIG_DIR or the platform default)")
    .action(async (options: { client?: string; config?: string }) => {
      const { runGuardCommand } = await import("./guard.js");
      setExit(await runGuardCommand(options));
    });
}
