/**
 * Reading the audit log back: checking its hash chain, and its last records.
 *
 * Verification finds, at the line where the chain first disagrees, a record
 * that was edited, removed, inserted, swapped or reformatted. It cannot find a
 * log whose tail was cut off, or one rewritten from the first record on by
 * someone with write access (see docs/audit.md): note `lastHash` somewhere else
 * to detect those.
 */
import { openSync, closeSync, fstatSync, readFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { visitLinesFromEnd } from "./file-tail.js";
import { checkAuditLine, GENESIS_HASH, type AuditRecord } from "./record.js";

export interface AuditProblem {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly reason: string;
  /**
   * True for an unreadable fragment the chain passes over: the last line
   * without its newline, or a line the next record chains around. That is what
   * an interrupted append (power loss, disk full) leaves; it is reported but
   * does not make the log fail verification.
   */
  readonly torn: boolean;
}

export interface AuditVerification {
  /** True when every record is intact and chained; torn lines alone do not make it false. */
  readonly ok: boolean;
  /** Intact records. */
  readonly records: number;
  readonly problems: readonly AuditProblem[];
  /** The digest the next record will chain to; undefined for an empty log. */
  readonly lastHash: string | undefined;
}

/** One line of `tailAuditLog`: a record (and whether its own hash holds), or a line that is no record. */
export type AuditTailEntry = { readonly record: AuditRecord; readonly intact: boolean } | { readonly unreadable: string };

/**
 * Verifies the chain of the log at `file`.
 *
 * @throws the file-system error when the file is missing or unreadable.
 */
export async function verifyAuditLog(file: string): Promise<AuditVerification> {
  return verifyAuditBytes(await readFile(file));
}

/** verifyAuditLog for synchronous callers (the operator CLI). */
export function verifyAuditLogSync(file: string): AuditVerification {
  return verifyAuditBytes(readFileSync(file));
}

interface PendingLine {
  readonly line: number;
  readonly reason: string;
  /** Unreadable (not JSON): could be torn; anything else is a problem whatever follows. */
  readonly unreadable: boolean;
}

/** Verifies a whole log held in memory. */
export function verifyAuditBytes(bytes: Uint8Array): AuditVerification {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lines = splitLines(buffer);
  const terminatedAtEnd = buffer.length === 0 || buffer[buffer.length - 1] === 0x0a;
  const problems: AuditProblem[] = [];
  let records = 0;
  let lastDigest: string | undefined;
  // Lines since the last intact record that were not intact records themselves.
  let pending: PendingLine[] = [];

  lines.forEach((bytesOfLine, index) => {
    const line = index + 1;
    const checked = checkAuditLine(bytesOfLine);
    if (checked.kind !== "record") {
      pending.push({ line, reason: checked.reason, unreadable: checked.kind === "unreadable" });
      return;
    }
    const chained = checked.record.prev === (lastDigest ?? GENESIS_HASH);
    for (const skipped of pending) {
      const torn = chained && skipped.unreadable;
      problems.push({ line: skipped.line, torn, reason: torn ? "torn line: an interrupted append, skipped by the chain" : skipped.reason });
    }
    if (!chained && pending.length === 0) {
      problems.push({
        line,
        torn: false,
        reason: "prev does not match the previous record: a record was removed, inserted or reordered before this line",
      });
    }
    pending = [];
    records += 1;
    lastDigest = checked.digest;
  });

  for (const skipped of pending) {
    const torn = skipped.unreadable && skipped.line === lines.length && !terminatedAtEnd;
    problems.push({ line: skipped.line, torn, reason: torn ? "torn last line: an interrupted append" : skipped.reason });
  }
  return { ok: problems.every((problem) => problem.torn), records, problems, lastHash: lastDigest };
}

/**
 * The last `count` lines of the log, oldest first, reading only the file's end.
 *
 * @throws the file-system error when the file is missing or unreadable.
 */
export async function tailAuditLog(file: string, count: number): Promise<AuditTailEntry[]> {
  checkCount(count);
  const handle = await open(file, "r");
  try {
    return count === 0 ? [] : lastEntries(handle.fd, (await handle.stat()).size, count);
  } finally {
    await handle.close();
  }
}

/** tailAuditLog for synchronous callers (the operator CLI). */
export function tailAuditLogSync(file: string, count: number): AuditTailEntry[] {
  checkCount(count);
  const fd = openSync(file, "r");
  try {
    return count === 0 ? [] : lastEntries(fd, fstatSync(fd).size, count);
  } finally {
    closeSync(fd);
  }
}

function checkCount(count: number): void {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError("count must be a whole number of at least 0");
}

function lastEntries(fd: number, size: number, count: number): AuditTailEntry[] {
  const entries: AuditTailEntry[] = [];
  visitLinesFromEnd(fd, size, (line) => {
    const checked = checkAuditLine(line);
    if (checked.kind === "record" || checked.kind === "edited") entries.push({ record: checked.record, intact: checked.kind === "record" });
    else entries.push({ unreadable: checked.reason });
    return entries.length >= count;
  });
  return entries.reverse();
}

/** Splits on LF; the empty piece after a final newline is not a line. */
function splitLines(buffer: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, start)) {
    lines.push(buffer.subarray(start, at));
    start = at + 1;
  }
  if (start < buffer.length) lines.push(buffer.subarray(start));
  return lines;
}
