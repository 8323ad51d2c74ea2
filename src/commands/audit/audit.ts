/**
 * `torii audit tail [-n N] [--json]` and `torii audit verify`: the operator's
 * view of the audit log (`<root>/audit.jsonl`).
 *
 * Both are read-only and take no lock: a record being appended at that moment
 * shows up as a torn last line or as lines after the anchored end, which
 * verification reports but does not fail on.
 * Everything printed from the log is sanitised again, because a log someone
 * edited could carry terminal escape sequences.
 */
import { auditLogPath } from "../../audit/audit-log.js";
import { canonicalJson, escapeUnsafeJson, sanitiseAuditText, type AuditRecord } from "../../audit/record.js";
import { MAX_KEPT_AUDIT_PROBLEMS, tailAuditLogSync, verifyAuditLogSync, type AuditTailEntry, type AuditVerification } from "../../audit/verify.js";
import { configRoot, EXIT_USAGE, OperatorError } from "../shared/operator-context.js";
import { DEFAULT_TAIL } from "./audit-command.js";

/** Exit code of `audit verify` when the chain is broken. */
export const EXIT_AUDIT_PROBLEMS = 1;

const MAX_TAIL = 100_000;

export interface AuditTailOptions {
  readonly lines?: string;
  readonly json?: boolean;
}

export function runAuditTail(options: AuditTailOptions): number {
  const count = parseCount(options.lines);
  const file = auditLogPath(configRoot());
  const entries = readLog(file, () => tailAuditLogSync(file, count));
  const out = entries.map((entry) => (options.json === true ? tailEntryJson(entry) : tailEntryText(entry)));
  if (out.length > 0) process.stdout.write(`${out.join("\n")}\n`);
  return 0;
}

export function runAuditVerify(options: { json?: boolean } = {}): number {
  const file = auditLogPath(configRoot());
  const result = readLog(file, () => verifyAuditLogSync(file));
  process.stdout.write(options.json === true ? `${JSON.stringify({ file, ...result }, null, 2)}\n` : verificationText(file, result));
  return result.ok ? 0 : EXIT_AUDIT_PROBLEMS;
}

function parseCount(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TAIL;
  const count = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_TAIL) {
    throw new OperatorError(`-n must be a whole number from 1 to ${MAX_TAIL}`);
  }
  return count;
}

/** Runs a read of the log, turning a missing or unreadable file into exit code 3. */
function readLog<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new OperatorError(`no audit log at ${file}`, EXIT_USAGE);
    throw new OperatorError(`cannot read the audit log ${file}: ${error instanceof Error ? error.message : String(error)}`, EXIT_USAGE);
  }
}

function verificationText(file: string, result: AuditVerification): string {
  const lines = result.problems.map(
    (problem) => `${problem.line === undefined ? "" : `line ${problem.line}: `}${problem.warning ? "warning: " : ""}${problem.reason}`,
  );
  if (result.omitted !== undefined) {
    lines.push(
      `... and ${result.omitted.problems} more problem(s) (${result.omitted.failures} failing), not listed: only the first ${MAX_KEPT_AUDIT_PROBLEMS} are kept`,
    );
  }
  const broken = result.problems.filter((problem) => !problem.warning).length + (result.omitted?.failures ?? 0);
  lines.push(result.ok ? `${file}: ${result.records} record(s), chain intact` : `${file}: ${broken} problem(s) in ${result.records} intact record(s)`);
  if (result.lastHash !== undefined) lines.push(`last hash: ${result.lastHash}`);
  return `${lines.join("\n")}\n`;
}

/** A stored record as JSON, with what could act on a terminal escaped (an edited log may hold it). */
function tailEntryJson(entry: AuditTailEntry): string {
  if ("unreadable" in entry) return JSON.stringify({ unreadable: entry.unreadable });
  const line = escapeUnsafeJson(canonicalJson(entry.record));
  return entry.intact ? line : `${line.slice(0, -1)},"intact":false}`;
}

function tailEntryText(entry: AuditTailEntry): string {
  if ("unreadable" in entry) return `(not a record: ${entry.unreadable})`;
  const record: AuditRecord = entry.record;
  const clean = (value: string): string => sanitiseAuditText(value, 256);
  const quoted = (value: string): string => JSON.stringify(clean(value));
  const parts = [entry.intact ? "" : "[edited]", clean(record.time), clean(record.scope), clean(record.event)];
  if (record.exit_code !== undefined) parts.push(`exit=${record.exit_code === null ? "signal" : String(record.exit_code)}`);
  if (record.duration_ms !== undefined) parts.push(`${record.duration_ms}ms`);
  if (record.timed_out === true) parts.push("timed-out");
  if (record.truncated === true) parts.push("truncated");
  if (record.argv_head !== undefined) parts.push(`argv=[${record.argv_head.map(quoted).join(" ")}]`);
  if (record.source !== undefined) parts.push(`source=${clean(record.source)}`);
  if (record.rule !== undefined) parts.push(`rule=${quoted(record.rule)}`);
  if (record.detail !== undefined) parts.push(`detail=${quoted(record.detail)}`);
  parts.push(`call=${clean(record.call_id)}`);
  return parts.filter((part) => part !== "").join("  ");
}
