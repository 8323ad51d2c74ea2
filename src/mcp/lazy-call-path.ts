/**
 * The call side of the server (call-path.ts), loaded once, on first use: it is
 * imported lazily (in the built server, its modules are evaluated then) because
 * initialize and tools/list need none of it.
 *
 * A failed load (a module that throws as it is evaluated, a file missing from a
 * broken checkout) is reported once on
 * stderr and remembered: every call then fails and runs nothing, and the audit
 * sink answers with the failure, as AuditLog.appendBatch does for its own, so
 * no record is dropped without a word.
 */
import type { AuditAppendResult } from "../audit/audit-log.js";
import type { AuditSink } from "../pipeline/call-audit.js";
import type { CallPath } from "./call-path.js";

export interface LazyCallPath {
  /** The call side; loads it on the first use, and every later use shares that load. */
  get(): Promise<CallPath>;
  /** The call audits' sink: appends through the call side's audit log, loading it if needed. */
  readonly auditSink: AuditSink;
  /** The call side if its load was started (a call came), once loaded; undefined otherwise or when the load failed. Never loads it. */
  ifLoaded(): Promise<CallPath | undefined>;
  /** Closes the call side if it was loaded (its approval page server); nothing otherwise. */
  close(): Promise<void>;
}

/** Wraps `load` (the dynamic import of call-path.ts) so that it runs at most once. */
export function lazyCallPath(load: () => Promise<CallPath>, report: (message: string) => void): LazyCallPath {
  let loaded: Promise<CallPath> | undefined;
  const get = (): Promise<CallPath> =>
    (loaded ??= load().catch((error: unknown) => {
      report(`the call path could not be loaded, so no call can run: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }));
  return {
    get,
    auditSink: {
      async appendBatch(records, options): Promise<AuditAppendResult> {
        let callPath: CallPath;
        try {
          callPath = await get();
        } catch (error) {
          return { ok: false, error: error instanceof Error ? error : new Error(String(error)) };
        }
        return callPath.audit.appendBatch(records, options);
      },
    },
    ifLoaded() {
      return loaded === undefined ? Promise.resolve(undefined) : loaded.catch(() => undefined);
    },
    async close() {
      if (loaded === undefined) return;
      const callPath = await loaded.catch(() => undefined);
      await callPath?.close();
    },
  };
}
