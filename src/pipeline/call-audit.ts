/**
 * The audit trail of one call: every record carries the call id, the scope,
 * the first two argv tokens and the hash of the policy files in force. Records
 * are appended in order and in the background: an audit write never delays or
 * changes a decision (a failure is reported on stderr by the log itself).
 */
import type { AuditEvent, AuditInput } from "../audit/audit-log.js";

/** The fields a pipeline step may add; the identifying fields are bound once per call. */
export interface CallAuditEntry {
  readonly event: AuditEvent;
  readonly source?: string;
  readonly rule?: string;
  readonly detail?: string;
  readonly exit_code?: number | null;
  readonly duration_ms?: number;
  readonly truncated?: boolean;
  readonly timed_out?: boolean;
}

export interface CallAudit {
  record(entry: CallAuditEntry): void;
  setPolicyHash(hash: string): void;
  /** Resolves when every record of this call has been written (or has failed). */
  flushed(): Promise<void>;
}

export interface AuditSink {
  append(record: AuditInput): Promise<unknown>;
}

/** `--token=eyJ…` → `--token=…`: an option's value may be a credential the agent pasted. */
export function withoutOptionValue(token: string): string {
  const equals = token.indexOf("=");
  return token.startsWith("-") && equals !== -1 ? `${token.slice(0, equals)}=…` : token;
}

export function createCallAudit(sink: AuditSink, base: { callId: string; scope: string; argv: readonly string[] }): CallAudit {
  let policyHash: string | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  return {
    record(entry) {
      const record: AuditInput = {
        call_id: base.callId,
        scope: base.scope,
        argv_head: base.argv.slice(0, 2).map(withoutOptionValue),
        ...(policyHash === undefined ? {} : { policy_hash: policyHash }),
        ...entry,
      };
      // Serialised per call so the chain keeps the pipeline's order.
      chain = chain.then(() => sink.append(record)).catch(() => undefined);
    },
    setPolicyHash(hash) {
      policyHash = hash;
    },
    flushed: () => chain.then(() => undefined),
  };
}
