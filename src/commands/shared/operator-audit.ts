/**
 * The operator CLI's audit records: each command that changes a lease, a
 * target or a grant leaves one record per event in `<root>/audit.jsonl`, in the
 * same format as the server's (docs/audit.md).
 *
 * One invocation is one call: its records share a random `call_id`. Appends
 * are best-effort (AuditLog.append never rejects and reports a failure on
 * stderr itself), so the audit never changes a command's exit code or stdout.
 */
import { randomUUID } from "node:crypto";
import { AuditLog, auditLogPath, type AuditEvent } from "../../audit/audit-log.js";
import { configRoot } from "./operator-context.js";

/** What one operator record says; the call id is the invocation's. */
export interface OperatorAuditEntry {
  readonly event: AuditEvent;
  /** `tool` or `tool/target`, as the server writes it. */
  readonly scope: string;
  /** A short, non-secret note: never file contents, never tokens beyond the argv head. */
  readonly detail?: string;
  /** Canonical tokens: the writer keeps at most the first two, and none from the first option on. */
  readonly argv?: readonly string[];
}

export interface OperatorAudit {
  /** Appends one record; resolves once it is written or its failure was reported. Never rejects. */
  record(entry: OperatorAuditEntry): Promise<void>;
}

/** The audit of one operator command invocation. */
export function operatorAudit(root: string = configRoot()): OperatorAudit {
  const log = new AuditLog(auditLogPath(root));
  const callId = randomUUID();
  return {
    async record({ event, scope, detail, argv }) {
      try {
        await log.append({
          call_id: callId,
          scope,
          event,
          ...(detail === undefined ? {} : { detail }),
          ...(argv === undefined ? {} : { argv_head: argv }),
        });
      } catch {
        // append never rejects; this only guards the command's outcome against a future change.
      }
    },
  };
}

/** `tool` or `tool/target`: the scope the server writes for the same calls. */
export function auditScope(tool: string, target?: string): string {
  return target === undefined ? tool : `${tool}/${target}`;
}
