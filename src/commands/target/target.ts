/**
 * `torii target add|list|show|status|activate|clear|remove`: the operator's
 * targets (human-chosen bindings the agent names only by alias) and their
 * leases. The work is in target-add.ts and target-leases.ts, imported only when
 * a command runs.
 */
import type { Command } from "commander";
import { MAX_MINUTES, type JsonOption } from "../shared/operator-output.js";
import type { TargetAddOptions } from "./target-add.js";
import type { TargetActivateOptions, TargetRemoveOptions } from "./target-leases.js";

const JSON_HELP = "machine-readable output";

const leaseRunners = () => import("./target-leases.js");

/** Adds the `target` commands to the operator's program. */
export function registerTargetCommand(program: Command, setExit: (code: number) => void): void {
  const target = program.command("target").description("configure targets and grant or revoke their leases");
  target
    .command("add")
    .description("create a target (its flags depend on the provider's targeting.mode; needs an MCP server restart)")
    .argument("<tool>", "provider tool name")
    .argument("<name>", "the new target's alias")
    .option(
      "--context <context>",
      "kubectl_context: the kubeconfig context (must exist in the kubeconfig the server's kubectl reads: --kubeconfig, else ~/.kube/config; never the shell's $KUBECONFIG)",
    )
    .option(
      "--kubeconfig <path>",
      "kubectl_context: an absolute kubeconfig path the target pins (KUBECONFIG for the call and its identity check; it must pass the trust rule)",
    )
    .option("--provider <name>", "kubectl_context (required), credentials: the identity provider's name")
    .option("--profile <profile>", "aws_profile: the AWS profile")
    .option("--account-id <id>", "aws_profile: the 12-digit AWS account id the profile must reach")
    .option("--region <region>", "aws_profile: the region to pin")
    .option("--check-account", "aws_profile: ask STS first; refuse unless the profile's account is --account-id")
    .option("--scope <scope>", "the identity scope (default: the target name; aws_profile: the profile)")
    .option("--expect <value>", "kubectl_context, credentials: the identity the provider's probe must report")
    .option("--json", JSON_HELP)
    .action(async (tool: string, name: string, options: TargetAddOptions) => {
      const { runTargetAdd } = await import("./target-add.js");
      setExit(await runTargetAdd(tool, name, options));
    });
  target
    .command("list")
    .description("list the targets of a provider, active or not")
    .argument("<tool>", "provider tool name")
    .option("--json", JSON_HELP)
    .action(async (tool: string, options: JsonOption) => {
      const { runTargetList } = await leaseRunners();
      setExit(runTargetList(tool, options));
    });
  target
    .command("show")
    .description("print a target's configuration and lease")
    .argument("<tool>", "provider tool name")
    .argument("<name>", "target alias")
    .option("--json", JSON_HELP)
    .action(async (tool: string, name: string, options: JsonOption) => {
      const { runTargetShow } = await leaseRunners();
      setExit(runTargetShow(tool, name, options));
    });
  target
    .command("status")
    .description("print the lease file: revision and active leases (exit 1 when it is invalid)")
    .argument("<tool>", "provider tool name")
    .option("--json", JSON_HELP)
    .action(async (tool: string, options: JsonOption) => {
      const { runTargetStatus } = await leaseRunners();
      setExit(runTargetStatus(tool, options));
    });
  target
    .command("activate")
    .description("lease a target to the agent for a while (replaces every other active lease unless --add)")
    .argument("<tool>", "provider tool name")
    .argument("<name>", "target alias")
    .option("--for <minutes>", `how long, 1..${MAX_MINUTES} (default: default_target_minutes from settings.yaml)`)
    .option("--add", "keep the other active leases")
    .option("--json", JSON_HELP)
    .action(async (tool: string, name: string, options: TargetActivateOptions) => {
      const { runTargetActivate } = await leaseRunners();
      setExit(await runTargetActivate(tool, name, options));
    });
  target
    .command("clear")
    .description("revoke every lease of the provider (targets stay; recovers an invalid lease file)")
    .argument("<tool>", "provider tool name")
    .option("--json", JSON_HELP)
    .action(async (tool: string, options: JsonOption) => {
      const { runTargetClear } = await leaseRunners();
      setExit(await runTargetClear(tool, options));
    });
  target
    .command("remove")
    .description("revoke a target's lease, then delete its directory (needs --force and an MCP server restart)")
    .argument("<tool>", "provider tool name")
    .argument("<name>", "target alias")
    .option("--force", "really delete the target's directory (target.yaml, rules.yaml, .env, grants)")
    .option("--json", JSON_HELP)
    .action(async (tool: string, name: string, options: TargetRemoveOptions) => {
      const { runTargetRemove } = await leaseRunners();
      setExit(await runTargetRemove(tool, name, options));
    });
}
