/**
 * The recent calls the audit log remembers, for simulating a rule change.
 *
 * The log keeps only each call's argv head (argv-head.ts: at most two leading
 * canonical positionals, never an option or its value), so a recent call is
 * known only as "a call starting with these tokens". Calls whose argv was
 * refused before the grammar read it have no head and are left out; so are
 * the operator's own records (grants, targets), which are not calls.
 */
import type { AuditRecord } from "./record.js";
import { tailAuditLogSync } from "./verify.js";

/** Events that say how a call was decided; the first one of a call is its outcome. */
const DECISION_EVENTS: ReadonlySet<string> = new Set([
  "allowed-by-rules",
  "allowed-by-grant",
  "override-once",
  "override-timed",
  "denied-explicit",
  "denied-forbidden-arg",
  "denied-policy-error",
  "denied-headless",
  "denied-interface",
  "denied-target-inactive",
  "human-deny",
  "approval-timeout",
]);

/** One call from the audit log, as far as the log knows it. */
export interface RecentCall {
  /** `provider` (the tool name) or `provider/target`. */
  readonly scope: string;
  /** The call's leading canonical positionals (at most two): the call started with these. */
  readonly head: readonly string[];
  /** When its first record was written (ISO-8601 UTC). */
  readonly time: string;
  /** The event that decided it (`allowed-by-rules`, `denied-headless`, …). */
  readonly outcome: string;
}

/** How many log lines `readRecentCalls` reads from the end by default. */
export const RECENT_CALL_LINES = 5000;

/**
 * The decided calls among the last `lines` lines of the audit log, oldest
 * first. A missing log is no calls; unreadable lines are skipped (`torii
 * audit verify` is the place that reports them).
 *
 * @throws the file-system error when the log exists but cannot be read.
 */
export function readRecentCalls(logFile: string, lines: number = RECENT_CALL_LINES): RecentCall[] {
  let entries;
  try {
    entries = tailAuditLogSync(logFile, lines);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const records = entries.flatMap((entry) => ("record" in entry ? [entry.record] : []));
  return recentCallsOf(records);
}

/** Groups records by call id into calls (pure; see readRecentCalls). */
export function recentCallsOf(records: readonly AuditRecord[]): RecentCall[] {
  const calls = new Map<string, { scope: string; head?: readonly string[]; time: string; outcome?: string }>();
  for (const record of records) {
    let call = calls.get(record.call_id);
    if (call === undefined) {
      call = { scope: record.scope, time: record.time };
      calls.set(record.call_id, call);
    }
    if (call.head === undefined && record.argv_head !== undefined && record.argv_head.length > 0) call.head = record.argv_head;
    if (call.outcome === undefined && DECISION_EVENTS.has(record.event)) call.outcome = record.event;
  }
  return [...calls.values()].flatMap(({ scope, head, time, outcome }) => (head === undefined || outcome === undefined ? [] : [{ scope, head, time, outcome }]));
}
