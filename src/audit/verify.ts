/**
 * Reading the audit log back: checking its hash chain against its head, and
 * its last records.
 *
 * Verification finds, at the line where the chain first disagrees, a record
 * that was edited, removed, inserted, swapped or reformatted, and any line that
 * is not a record (only an unterminated last line counts as torn: the trace of
 * an interrupted append). The head (head.ts) finds records cut off the end. A
 * log rewritten consistently with its head by someone with write access to the
 * directory still verifies (see docs/audit.md): keep `lastHash` elsewhere to
 * detect that.
 */
import { closeSync, readSync } from "node:fs";
import { visitLinesFromEnd } from "./file-tail.js";
import { readAuditHead, readAuditHeadSync, type AuditHeadReading } from "./head.js";
import { auditFileProblems, openAuditLogForReading } from "./log-files.js";
import { ANCHORED_GENESIS_HASH, checkAuditLine, GENESIS_HASH, sanitiseAuditText, sha256Hex, type AuditRecord } from "./record.js";

export interface AuditProblem {
  /** 1-based line number in the log; absent for a finding about the log as a whole (its head). */
  readonly line?: number;
  readonly reason: string;
  /**
   * True for what does not fail verification: an unterminated unreadable last
   * line (an interrupted append), lines after the end the head anchors (a
   * crash before the head was replaced), and the one-time anchoring of a log
   * written before heads existed.
   */
  readonly warning: boolean;
}

export interface AuditVerification {
  /** True when every record is intact, chained and anchored; warnings alone do not make it false. */
  readonly ok: boolean;
  /** Intact records. */
  readonly records: number;
  readonly problems: readonly AuditProblem[];
  /** The digest the next record will chain to; undefined for an empty log. */
  readonly lastHash: string | undefined;
}

/** One line of `tailAuditLog`: a record (and whether its own hash holds), or a line that is no record. */
export type AuditTailEntry = { readonly record: AuditRecord; readonly intact: boolean } | { readonly unreadable: string };

/** The failed verification of a log or head that is not a regular file (log-files.ts): nothing is read through a link. */
function notRegularFiles(file: string): AuditVerification | undefined {
  const problems = auditFileProblems(file);
  return problems.length === 0 ? undefined : { ok: false, records: 0, problems, lastHash: undefined };
}

/**
 * Verifies the chain of the log at `file` and checks it against its head. A
 * log or head that is a symbolic link or not a regular file fails unread.
 *
 * @throws the file-system error when the file is missing or unreadable.
 */
export async function verifyAuditLog(file: string): Promise<AuditVerification> {
  const refused = notRegularFiles(file);
  if (refused !== undefined) return refused;
  // The head first: an append landing between the two reads then makes the log longer than its head, which is fine.
  const head = await readAuditHead(file);
  return verifyAuditBytes(readWholeLog(file), head);
}

/** verifyAuditLog for synchronous callers (the operator CLI). */
export function verifyAuditLogSync(file: string): AuditVerification {
  const refused = notRegularFiles(file);
  if (refused !== undefined) return refused;
  const head = readAuditHeadSync(file);
  return verifyAuditBytes(readWholeLog(file), head);
}

/** The log's bytes as they are when it is opened (openAuditLogForReading: no link, FIFO or device). */
function readWholeLog(file: string): Buffer {
  const { fd, size } = openAuditLogForReading(file);
  try {
    const buffer = Buffer.alloc(size);
    let length = 0;
    for (let got = -1; got !== 0 && length < size; length += got) got = readSync(fd, buffer, length, size - length, length);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

interface Line {
  readonly bytes: Buffer;
  /** Offset just past the line's newline (or its last byte when unterminated). */
  readonly end: number;
  readonly terminated: boolean;
}

/** Verifies a whole log held in memory; against its head when one is given. */
export function verifyAuditBytes(bytes: Uint8Array, head?: AuditHeadReading): AuditVerification {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lines = splitLines(buffer);
  const problems: AuditProblem[] = [];
  let records = 0;
  let lastDigest: string | undefined;
  let afterBadLine = false;
  let anchoredFromStart = false;
  let anchoredBefore = false;

  lines.forEach((entry, index) => {
    const line = index + 1;
    const checked = checkAuditLine(entry.bytes);
    if (checked.kind !== "record") {
      const torn = checked.kind === "unreadable" && line === lines.length && !entry.terminated;
      problems.push({ line, warning: torn, reason: torn ? "torn last line: an interrupted append" : checked.reason });
      afterBadLine = true;
      return;
    }
    const { prev, event } = checked.record;
    if (lastDigest === undefined && prev === ANCHORED_GENESIS_HASH) anchoredFromStart = true;
    const chained = lastDigest === undefined ? prev === GENESIS_HASH || prev === ANCHORED_GENESIS_HASH : prev === lastDigest;
    // After a line that is no record, the break is already reported at that line.
    if (!chained && !afterBadLine) {
      problems.push({ line, warning: false, reason: "prev does not match the previous record: a record was removed, inserted or reordered before this line" });
    }
    if (event === "audit-head-mismatch") {
      problems.push({
        line,
        warning: false,
        reason: `a writer found the log not matching audit.head here: ${sanitiseAuditText(checked.record.detail ?? "", 200)}`,
      });
    } else if (event === "audit-anchored") {
      const lost = anchoredFromStart || anchoredBefore;
      problems.push({
        line,
        warning: !lost,
        reason: lost
          ? "audit.head was missing here although the log was already anchored: it was deleted or lost, and records cut off before this line would go unnoticed"
          : "audit.head was created here for a log written before heads existed: the end of the log before this line was never anchored",
      });
      anchoredBefore = true;
    }
    afterBadLine = false;
    records += 1;
    lastDigest = checked.digest;
  });

  if (head !== undefined) problems.push(...checkHead(lines, buffer.length, head));
  return { ok: problems.every((problem) => problem.warning), records, problems, lastHash: lastDigest };
}

/** Compares the log's lines with what its head anchors. */
function checkHead(lines: readonly Line[], size: number, reading: AuditHeadReading): AuditProblem[] {
  if (reading.state === "missing") {
    if (size === 0) return [];
    return [
      {
        warning: false,
        reason:
          "head missing: there is no audit.head beside the log, so records cut off its end would go unnoticed (a log from before heads gets one at its next append)",
      },
    ];
  }
  if (reading.state === "unreadable") return [{ warning: false, reason: `head unreadable: ${reading.reason}` }];
  const { head } = reading;
  if (head.bytes > size) {
    return [
      {
        warning: false,
        reason: `truncated: audit.head anchors ${head.lines} line(s) and ${head.bytes} bytes, the log has ${lines.length} line(s) and ${size} bytes: records were cut off the end`,
      },
    ];
  }
  const anchored = lines[head.lines - 1];
  if (anchored === undefined || !anchored.terminated || anchored.end !== head.bytes || sha256Hex(anchored.bytes) !== head.last_hash) {
    return [
      {
        line: Math.min(head.lines, lines.length),
        warning: false,
        reason: `edited: line ${head.lines}, the last one audit.head anchors, is not the line it recorded (changed, or lines before it removed or added)`,
      },
    ];
  }
  const after = lines.slice(head.lines).filter((line) => line.terminated).length;
  if (after === 0) return [];
  return [
    {
      line: head.lines + 1,
      warning: true,
      reason: `${after} line(s) after the end audit.head anchors: an append interrupted before the head was replaced, a server that has not moved its head yet (it does so within a second), or a writer that keeps no head`,
    },
  ];
}

/**
 * The last `count` lines of the log, oldest first, reading only the file's end.
 *
 * @throws the file-system error when the file is missing or unreadable.
 */
export function tailAuditLog(file: string, count: number): Promise<AuditTailEntry[]> {
  try {
    return Promise.resolve(tailAuditLogSync(file, count));
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** tailAuditLog for synchronous callers (the operator CLI). */
export function tailAuditLogSync(file: string, count: number): AuditTailEntry[] {
  checkCount(count);
  const { fd, size } = openAuditLogForReading(file);
  try {
    return count === 0 ? [] : lastEntries(fd, size, count);
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
    if (line === null) {
      entries.push({ unreadable: "a line longer than any record" });
      return entries.length >= count;
    }
    const checked = checkAuditLine(line);
    if (checked.kind === "record" || checked.kind === "edited") entries.push({ record: checked.record, intact: checked.kind === "record" });
    else entries.push({ unreadable: checked.reason });
    return entries.length >= count;
  });
  return entries.reverse();
}

/** Splits on LF; the empty piece after a final newline is not a line. */
function splitLines(buffer: Buffer): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, start)) {
    lines.push({ bytes: buffer.subarray(start, at), end: at + 1, terminated: true });
    start = at + 1;
  }
  if (start < buffer.length) lines.push({ bytes: buffer.subarray(start), end: buffer.length, terminated: false });
  return lines;
}
