/**
 * Declares `torii grant add|list|revoke|clear`. Light on purpose: the grammar,
 * the grant store and the registry (grant.ts) are imported only when one of
 * these commands runs.
 */
import type { Command } from "commander";
import { MAX_MINUTES, type JsonOption } from "../shared/operator-output.js";
import type { GrantAddOptions } from "./grant.js";

const grantRunners = () => import("./grant.js");

/** Adds `grant add|list|revoke|clear` to the operator's program. */
export function registerGrantCommand(program: Command, passthrough: readonly string[] | undefined, setExit: (code: number) => void): void {
  const grant = program.command("grant").description("timed grants for argvs the rules leave unresolved");
  grant
    .command("add")
    .description("grant an argv (--exact) or its first N canonical tokens (--prefix N) for a while")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias (required for a target-aware provider)")
    .usage("<tool> [target] (--exact | --prefix N) [--for MIN] [--json] -- <args…>")
    .option("--exact", "grant exactly this canonical argv")
    .option("--prefix <n>", "grant every argv starting with its first N canonical tokens")
    .option("--for <minutes>", `how long, 1..${MAX_MINUTES} (default: default_grant_minutes from settings.yaml)`)
    .option("--json", "machine-readable output")
    .action(async (tool: string, target: string | undefined, options: GrantAddOptions) => {
      const { runGrantAdd } = await grantRunners();
      setExit(await runGrantAdd(tool, target, options, passthrough));
    });
  grant
    .command("list")
    .description("list the live grants (exit 1 when the grants file is invalid)")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .option("--json", "machine-readable output")
    .action(async (tool: string, target: string | undefined, options: JsonOption) => {
      const { runGrantList } = await grantRunners();
      setExit(runGrantList(tool, target, options));
    });
  grant
    .command("revoke")
    .description("revoke the grant with this evidence (as printed by grant add and grant list)")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .argument("[evidence]", "grant:<mode>:<count>:<8 hex>")
    .usage("<tool> [target] <evidence> [--json]")
    .option("--json", "machine-readable output")
    .action(async (tool: string, first: string | undefined, second: string | undefined, options: JsonOption) => {
      const { runGrantRevoke } = await grantRunners();
      setExit(await (second === undefined ? runGrantRevoke(tool, undefined, first, options) : runGrantRevoke(tool, first, second, options)));
    });
  grant
    .command("clear")
    .description("revoke every grant of the provider (or target)")
    .argument("<tool>", "provider tool name")
    .argument("[target]", "target alias")
    .option("--json", "machine-readable output")
    .action(async (tool: string, target: string | undefined, options: JsonOption) => {
      const { runGrantClear } = await grantRunners();
      setExit(await runGrantClear(tool, target, options));
    });
}
