/**
 * The audit trail of one call: every record carries the call id, the scope,
 * the argv head (at most two leading positionals, never an option or its
 * value; none at all for an argv the grammar refused) and the hash of the
 * policy files in force.
 *
 * Records are buffered and written by `flush`, each flush one append. The
 * pipeline flushes just before it starts a process (a lifecycle command, the
 * program), so no process starts before the records that allowed it are in
 * the file; that append is not fsynced (a crash of Torii cannot lose it, a
 * power cut can, docs/audit.md). The rest is written by the final, durable
 * flush after the call: a denied call's records as one append, fsynced at
 * once; the records after a process started (`ran`) wait in the server's
 * writer for its next append (another call's) or at most a second, and are
 * fsynced with it, so an allowed call costs one lock cycle and no fsync of
 * its own (audit-log.ts, deferWrite). A failure is reported on stderr by the
 * log itself. No record, no run: when the records that allow a process could
 * not be written, the process does not start (`recordBeforeStart`); a denied
 * call stays denied whatever its records' fate.
 *
 * Once the call's credentials are read, its redactor masks them in every
 * record written from then on (including buffered ones and the argv head).
 */
import type { AuditEvent, AuditInput } from "../audit/audit-log.js";
import { NO_REDACTION, type Redactor } from "../runtime/redaction.js";

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
  /** Adds a record to the call's buffer. */
  record(entry: CallAuditEntry): void;
  setPolicyHash(hash: string): void;
  /**
   * The positionals of the canonical argv, once the grammar has read it; the
   * writer keeps the leading ones (argv-head.ts). Never called for a refused argv.
   */
  setPositionals(positionals: readonly string[]): void;
  /** The call's redactor, applied to every text field of the records written after this. */
  redactWith(redactor: Redactor): void;
  /**
   * Writes the buffered records in one append; resolves once they are in the
   * file (true) or their failure was reported (false). With `durable` (the
   * call's last flush), the records are also fsynced and anchored: at once
   * when no earlier flush let a process start, otherwise with the writer's
   * next append or within its delay (deferWrite).
   */
  flush(options?: { readonly durable?: boolean }): Promise<boolean>;
  /** Resolves when every append of this call has finished, head included. */
  settled(): Promise<void>;
}

export interface AuditSink {
  /** Calls `onWritten` once the records are in the file; resolves `{ok: false}` when they could not be written (never rejects). */
  appendBatch(records: readonly AuditInput[], options: { onWritten: () => void; deferSync: boolean; deferWrite?: boolean }): Promise<{ readonly ok: boolean }>;
}

/** What a call says when the records that would allow a process are not in the audit log. */
export const NOT_RECORDED = "the audit log could not be written, so nothing was started (the server's stderr says why)";

/** Writes the records that allow a process; throws when they are not in the file: no record, no run. */
export async function recordBeforeStart(audit: CallAudit): Promise<void> {
  if (!(await audit.flush())) throw new Error(NOT_RECORDED);
}

export function createCallAudit(sink: AuditSink, base: { callId: string; scope: string }): CallAudit {
  let policyHash: string | undefined;
  let positionals: readonly string[] | undefined;
  let redactor = NO_REDACTION;
  let buffered: (CallAuditEntry & { policy_hash?: string })[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  let written: Promise<boolean> = Promise.resolve(true);
  // Set by the first flush, the one before a process starts: later records come after a process.
  let flushedBefore = false;
  return {
    record(entry) {
      buffered.push(policyHash === undefined ? entry : { ...entry, policy_hash: policyHash });
    },
    setPolicyHash(hash) {
      policyHash = hash;
    },
    setPositionals(tokens) {
      positionals = [...tokens];
    },
    redactWith(next) {
      redactor = next;
    },
    flush(options = {}) {
      if (buffered.length === 0) return written;
      const head = positionals === undefined ? {} : { argv_head: positionals.map((token) => redactor.redact(token)) };
      const batch: AuditInput[] = buffered.map((entry) => ({ call_id: base.callId, scope: base.scope, ...head, ...redactEntry(entry, redactor) }));
      buffered = [];
      let inFile: (written: boolean) => void = () => undefined;
      written = new Promise<boolean>((resolve) => (inFile = resolve));
      const deferSync = options.durable !== true;
      const deferWrite = !deferSync && flushedBefore;
      flushedBefore = true;
      // Serialised per call so the chain keeps the pipeline's order. Lines already in the file
      // stay reported written if a later step of the append (its fsync) fails.
      chain = chain
        .then(() =>
          sink.appendBatch(batch, {
            onWritten: () => {
              inFile(true);
            },
            deferSync,
            deferWrite,
          }),
        )
        .then(
          (result) => {
            inFile(result.ok);
          },
          () => {
            inFile(false);
          },
        );
      return written;
    },
    settled: () => chain.then(() => undefined),
  };
}

/** The entry with its free-text fields redacted. */
function redactEntry<E extends CallAuditEntry>(entry: E, redactor: Redactor): E {
  if (!redactor.active) return entry;
  const texts = (["source", "rule", "detail"] as const).filter((key) => typeof entry[key] === "string");
  return { ...entry, ...Object.fromEntries(texts.map((key) => [key, redactor.redact(entry[key] ?? "")])) };
}
