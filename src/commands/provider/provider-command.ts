/**
 * Declares `torii provider list|install|upgrade|remove`. Light on purpose: the
 * catalogue, registry and writers (provider.ts) load only when one runs.
 */
import type { Command } from "commander";
import type { JsonOption } from "../shared/operator-output.js";

const providerRunners = () => import("./provider.js");

/** Adds `provider list|install|upgrade|remove` to the operator's program. */
export function registerProviderCommand(program: Command, setExit: (code: number) => void): void {
  const provider = program.command("provider").description("install, upgrade and remove bundled providers");
  provider
    .command("list")
    .description("the bundled providers: installed or not, presets, the CLI version their table was made from")
    .option("--json", "machine-readable output")
    .action(async (options: JsonOption) => {
      setExit((await providerRunners()).runProviderList(options));
    });
  provider
    .command("install")
    .description("install a bundled provider (empty rules, or a preset's)")
    .argument("<name>", "bundled provider name (torii provider list)")
    .option("--preset <preset>", "start rules.yaml from this preset (e.g. readonly)")
    .option("--json", "machine-readable output")
    .action(async (name: string, options: JsonOption & { preset?: string }) => {
      setExit(await (await providerRunners()).runProviderInstall(name, options));
    });
  provider
    .command("upgrade")
    .description("replace an installed provider's definition with the bundled one, keeping rules, .env, targets, grants and leases")
    .argument("<name>", "installed provider name")
    .option("--dry-run", "show what would change, change nothing")
    .option("--json", "machine-readable output")
    .action(async (name: string, options: JsonOption & { dryRun?: boolean }) => {
      setExit(await (await providerRunners()).runProviderUpgrade(name, options));
    });
  provider
    .command("remove")
    .description("remove an installed provider (refuses while it holds targets, rules, .env, grants or leases, unless --force)")
    .argument("<name>", "installed provider name")
    .option("--force", "also delete the operator state it holds (each item is listed)")
    .option("--json", "machine-readable output")
    .action(async (name: string, options: JsonOption & { force?: boolean }) => {
      setExit((await providerRunners()).runProviderRemove(name, options));
    });
}
