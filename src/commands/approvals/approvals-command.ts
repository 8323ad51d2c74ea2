/**
 * Declares `torii approvals list|approve|deny`: answering the server's pending
 * approvals from any terminal of the machine (an SSH session, a headless box
 * where no browser opens). Light on purpose: the store loads only when one of
 * these commands runs.
 */
import type { Command } from "commander";
import { MAX_MINUTES, type JsonOption } from "../shared/operator-output.js";
import type { ApproveOptions, ListOptions } from "./approvals.js";

const approvalRunners = () => import("./approvals.js");

/** Adds `approvals list|approve|deny` to the operator's program. */
export function registerApprovalsCommand(program: Command, setExit: (code: number) => void): void {
  const approvals = program.command("approvals").description("list and answer the calls waiting for the operator's approval");
  approvals
    .command("list")
    .description("list the pending approvals (id, tool, target, canonical argv, expiry; with --links a fresh one-time page url)")
    .option("--links", "also mint and print a one-time link to each page (opens it once, in one browser)")
    .option("--json", "machine-readable output")
    .action(async (options: ListOptions) => {
      const { runApprovalsList } = await approvalRunners();
      setExit(await runApprovalsList(options));
    });
  approvals
    .command("approve")
    .description(
      "allow a pending call: once (default), or grant it for M minutes, exactly or by its first N tokens; for a lease request, activate the target (replacing the others unless --add)",
    )
    .argument("<id>", "the approval id (torii approvals list)")
    .usage("<id> [--once | --for M [--exact | --prefix N] | [--for M] [--add]] [--json]")
    .option("--once", "allow this call only (the default)")
    .option("--for <minutes>", `grant the argv for 1..${MAX_MINUTES} minutes (exact unless --prefix)`)
    .option("--exact", "with --for: grant exactly this canonical argv")
    .option("--prefix <n>", "with --for: grant every argv starting with its first N canonical tokens")
    .option("--add", "lease request: keep the other active targets (default: replace them)")
    .option("--json", "machine-readable output")
    .action(async (id: string, options: ApproveOptions) => {
      const { runApprovalsApprove } = await approvalRunners();
      setExit(await runApprovalsApprove(id, options));
    });
  approvals
    .command("deny")
    .description("deny a pending call or lease request")
    .argument("<id>", "the approval id (torii approvals list)")
    .option("--json", "machine-readable output")
    .action(async (id: string, options: JsonOption) => {
      const { runApprovalsDeny } = await approvalRunners();
      setExit(await runApprovalsDeny(id, options));
    });
}
