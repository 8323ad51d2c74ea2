/**
 * Declares `torii audit tail|verify`. Light on purpose: the log readers
 * (audit.ts) are imported only when one of these commands runs.
 */
import type { Command } from "commander";
import type { AuditTailOptions } from "./audit.js";

/** How many records `audit tail` prints without -n. */
export const DEFAULT_TAIL = 20;

/** Adds `audit tail` and `audit verify` to the operator's program. */
export function registerAuditCommand(program: Command, setExit: (code: number) => void): void {
  const audit = program.command("audit").description("read and verify the audit log");
  audit
    .command("tail")
    .description(`print the last records of the audit log (default ${DEFAULT_TAIL})`)
    .option("-n, --lines <count>", "how many records")
    .option("--json", "one JSON record per line")
    .action(async (options: AuditTailOptions) => {
      const { runAuditTail } = await import("./audit.js");
      setExit(runAuditTail(options));
    });
  audit
    .command("verify")
    .description("check the audit log's hash chain (exit 0 intact, 1 problems found, 3 missing or unreadable)")
    .option("--json", "machine-readable output")
    .action(async (options: { json?: boolean }) => {
      const { runAuditVerify } = await import("./audit.js");
      setExit(runAuditVerify(options));
    });
}
