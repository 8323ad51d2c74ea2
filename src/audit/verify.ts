/**
 * Reading the audit log back: checking its hash chain against its head, and
 * its last records.
 *
 * Verification finds, at the line where the chain first disagrees, a record
 * that was edited, removed, inserted, swapped or reformatted, and any line that
 * is not a record (only an unterminated last line that is not JSON and no longer
 * than a record counts as torn: the trace of an interrupted append). The head (head.ts) finds records cut off the end. A
 * log rewritten consistently with its head by someone with write access to the
 * directory still verifies (see docs/audit.md): keep `lastHash` elsewhere to
 * detect that.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, readSync } from "node:fs";
import { MAX_AUDIT_LINE_BYTES, visitLinesFromEnd } from "./file-tail.js";
import { readAuditHead, readAuditHeadSync, type AuditHeadReading } from "./head.js";
import { auditFileProblems, openAuditLogForReading } from "./log-files.js";
import { ANCHORED_GENESIS_HASH, checkAuditLine, GENESIS_HASH, sanitiseAuditText, type AuditLineCheck, type AuditRecord } from "./record.js";

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
  /**
   * Problems found past the first MAX_KEPT_AUDIT_PROBLEMS of the lines, counted
   * but not kept (memory stays bounded however many lines are bad); absent when
   * every problem is in `problems`.
   */
  readonly omitted?: { readonly problems: number; readonly failures: number };
}

/** How many problems of the lines a verification keeps; the rest are only counted. */
export const MAX_KEPT_AUDIT_PROBLEMS = 100;

/** One line of `tailAuditLog`: a record (and whether its own hash holds), or a line that is no record. */
export type AuditTailEntry = { readonly record: AuditRecord; readonly intact: boolean } | { readonly unreadable: string };

/** The failed verification of a log or head that is not a regular file (log-files.ts): nothing is read through a link. */
function notRegularFiles(file: string): AuditVerification | undefined {
  const problems = auditFileProblems(file);
  return problems.length === 0 ? undefined : { ok: false, records: 0, problems, lastHash: undefined };
}

/** How much of the log verification reads at a time: its memory is this plus one line of at most MAX_AUDIT_LINE_BYTES. */
export const AUDIT_VERIFY_CHUNK_BYTES = 64 * 1024;

/** Options of a verification; for tests. */
export interface AuditVerifyOptions {
  /** Bytes read at a time (AUDIT_VERIFY_CHUNK_BYTES by default). */
  readonly chunkBytes?: number;
}

/**
 * Verifies the chain of the log at `file` and checks it against its head. A
 * log or head that is a symbolic link or not a regular file fails unread.
 * The log is read a chunk at a time, line by line: memory stays bounded
 * whatever its size.
 *
 * @throws the file-system error when the file is missing or unreadable.
 */
export async function verifyAuditLog(file: string, options: AuditVerifyOptions = {}): Promise<AuditVerification> {
  const refused = notRegularFiles(file);
  if (refused !== undefined) return refused;
  // The head first: an append landing between the two reads then makes the log longer than its head, which is fine.
  const head = await readAuditHead(file);
  return verifyOpenedLog(file, head, options);
}

/** verifyAuditLog for synchronous callers (the operator CLI). */
export function verifyAuditLogSync(file: string, options: AuditVerifyOptions = {}): AuditVerification {
  const refused = notRegularFiles(file);
  if (refused !== undefined) return refused;
  const head = readAuditHeadSync(file);
  return verifyOpenedLog(file, head, options);
}

/** Streams the log's bytes as they are when it is opened (openAuditLogForReading: no link, FIFO or device) through a verifier. */
function verifyOpenedLog(file: string, head: AuditHeadReading, options: AuditVerifyOptions): AuditVerification {
  const chunkBytes = options.chunkBytes ?? AUDIT_VERIFY_CHUNK_BYTES;
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) throw new RangeError("chunkBytes must be a whole number of at least 1");
  const verifier = new ChainVerifier(head);
  const { fd, size } = openAuditLogForReading(file);
  try {
    const chunk = Buffer.alloc(Math.max(1, Math.min(chunkBytes, size)));
    for (let position = 0; position < size;) {
      const got = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
      if (got === 0) break;
      verifier.push(chunk.subarray(0, got));
      position += got;
    }
  } finally {
    closeSync(fd);
  }
  return verifier.finish();
}

/** Verifies a whole log held in memory; against its head when one is given. */
export function verifyAuditBytes(bytes: Uint8Array, head?: AuditHeadReading): AuditVerification {
  const verifier = new ChainVerifier(head);
  verifier.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return verifier.finish();
}

/** Said of a line longer than any record (MAX_AUDIT_LINE_BYTES): it is not gathered, so not parsed. */
const OVERLONG_LINE = "a line longer than any record";

/** What the head check needs of the line the head anchors. */
interface AnchoredLine {
  readonly end: number;
  readonly terminated: boolean;
  readonly hash: string;
}

/**
 * The chain check as a line-by-line state machine over chunks of the log:
 * each line is checked when its newline (or the end of the log) is reached;
 * a line longer than any record is not gathered, only counted (and hashed when
 * it is the line the head anchors).
 */
class ChainVerifier {
  readonly #head: AuditHeadReading | undefined;
  /** The line being gathered; parts until its newline. */
  #parts: Buffer[] = [];
  #partBytes = 0;
  #overlong = false;
  /** Incremental hash of the current line when it is the one the head anchors. */
  #anchorHash: Hash | undefined;
  #anchored: AnchoredLine | undefined;
  /** Lines finished so far; the current line is number #lines + 1. */
  #lines = 0;
  #size = 0;
  /** Terminated lines after the one the head anchors. */
  #terminatedAfterAnchor = 0;
  readonly #problems: AuditProblem[] = [];
  #omittedProblems = 0;
  #omittedFailures = 0;
  #records = 0;
  #lastDigest: string | undefined;
  #afterBadLine = false;
  #anchoredFromStart = false;
  #anchoredBefore = false;

  constructor(head: AuditHeadReading | undefined) {
    this.#head = head;
    this.#startLine();
  }

  /** The line number the head anchors, if the head is readable. */
  get #anchorLine(): number | undefined {
    return this.#head?.state === "present" ? this.#head.head.lines : undefined;
  }

  #startLine(): void {
    this.#parts = [];
    this.#partBytes = 0;
    this.#overlong = false;
    this.#anchorHash = this.#lines + 1 === this.#anchorLine ? createHash("sha256") : undefined;
  }

  #take(bytes: Buffer): void {
    this.#anchorHash?.update(bytes);
    if (this.#overlong) return;
    if (this.#partBytes + bytes.length > MAX_AUDIT_LINE_BYTES) {
      this.#overlong = true;
      this.#parts = [];
      this.#partBytes = 0;
      return;
    }
    // A copy: the caller reuses its chunk buffer.
    this.#parts.push(Buffer.from(bytes));
    this.#partBytes += bytes.length;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, start)) {
      this.#take(chunk.subarray(start, at));
      this.#size += at + 1 - start;
      this.#endLine(true);
      start = at + 1;
    }
    if (start < chunk.length) {
      this.#take(chunk.subarray(start));
      this.#size += chunk.length - start;
    }
  }

  finish(): AuditVerification {
    // An unterminated last line (the empty piece after a final newline is not a line).
    if (this.#partBytes > 0 || this.#overlong) this.#endLine(false);
    // The head's finding (at most one) is kept whatever the count.
    if (this.#head !== undefined) this.#problems.push(...this.#checkHead(this.#head));
    const ok = this.#omittedFailures === 0 && this.#problems.every((problem) => problem.warning);
    const result = { ok, records: this.#records, problems: this.#problems, lastHash: this.#lastDigest };
    return this.#omittedProblems === 0 ? result : { ...result, omitted: { problems: this.#omittedProblems, failures: this.#omittedFailures } };
  }

  /** Keeps `problem` if fewer than MAX_KEPT_AUDIT_PROBLEMS are kept, else only counts it. */
  #report(problem: AuditProblem): void {
    if (this.#problems.length < MAX_KEPT_AUDIT_PROBLEMS) {
      this.#problems.push(problem);
      return;
    }
    this.#omittedProblems += 1;
    if (!problem.warning) this.#omittedFailures += 1;
  }

  #endLine(terminated: boolean): void {
    const line = this.#lines + 1;
    const anchorLine = this.#anchorLine;
    if (this.#anchorHash !== undefined) this.#anchored = { end: this.#size, terminated, hash: this.#anchorHash.digest("hex") };
    else if (anchorLine !== undefined && line > anchorLine && terminated) this.#terminatedAfterAnchor += 1;
    this.#checkLine(line, terminated);
    this.#lines = line;
    this.#startLine();
  }

  #checkLine(line: number, terminated: boolean): void {
    const checked: AuditLineCheck = this.#overlong
      ? { kind: "unreadable", reason: OVERLONG_LINE }
      : checkAuditLine(this.#parts.length === 1 ? (this.#parts[0] ?? Buffer.alloc(0)) : Buffer.concat(this.#parts, this.#partBytes));
    if (checked.kind !== "record") {
      // Only the last line can be unterminated. An interrupted append leaves part of one record, never more than a
      // record's bytes: a longer unterminated line is not one (whether or not it is JSON: it is not gathered, so not
      // parsed), and fails like any other line that is no record.
      const torn = checked.kind === "unreadable" && !terminated && !this.#overlong;
      this.#report({
        line,
        warning: torn,
        reason: torn
          ? "torn last line: an interrupted append"
          : this.#overlong && !terminated
            ? `${OVERLONG_LINE}, unterminated: not an interrupted append`
            : checked.reason,
      });
      this.#afterBadLine = true;
      return;
    }
    const { prev, event } = checked.record;
    if (this.#lastDigest === undefined && prev === ANCHORED_GENESIS_HASH) this.#anchoredFromStart = true;
    const chained = this.#lastDigest === undefined ? prev === GENESIS_HASH || prev === ANCHORED_GENESIS_HASH : prev === this.#lastDigest;
    // After a line that is no record, the break is already reported at that line.
    if (!chained && !this.#afterBadLine) {
      this.#report({ line, warning: false, reason: "prev does not match the previous record: a record was removed, inserted or reordered before this line" });
    }
    if (event === "audit-head-mismatch") {
      this.#report({
        line,
        warning: false,
        reason: `a writer found the log not matching audit.head here: ${sanitiseAuditText(checked.record.detail ?? "", 200)}`,
      });
    } else if (event === "audit-anchored") {
      const lost = this.#anchoredFromStart || this.#anchoredBefore;
      this.#report({
        line,
        warning: !lost,
        reason: lost
          ? "audit.head was missing here although the log was already anchored: it was deleted or lost, and records cut off before this line would go unnoticed"
          : "audit.head was created here for a log written before heads existed: the end of the log before this line was never anchored",
      });
      this.#anchoredBefore = true;
    }
    this.#afterBadLine = false;
    this.#records += 1;
    this.#lastDigest = checked.digest;
  }

  /** Compares the log's lines with what its head anchors. */
  #checkHead(reading: AuditHeadReading): AuditProblem[] {
    const size = this.#size;
    const lines = this.#lines;
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
          reason: `truncated: audit.head anchors ${head.lines} line(s) and ${head.bytes} bytes, the log has ${lines} line(s) and ${size} bytes: records were cut off the end`,
        },
      ];
    }
    const anchored = this.#anchored;
    if (anchored === undefined || !anchored.terminated || anchored.end !== head.bytes || anchored.hash !== head.last_hash) {
      return [
        {
          line: Math.min(head.lines, lines),
          warning: false,
          reason: `edited: line ${head.lines}, the last one audit.head anchors, is not the line it recorded (changed, or lines before it removed or added)`,
        },
      ];
    }
    const after = this.#terminatedAfterAnchor;
    if (after === 0) return [];
    return [
      {
        line: head.lines + 1,
        warning: true,
        reason: `${after} line(s) after the end audit.head anchors: an append interrupted before the head was replaced, a server that has not moved its head yet (it does so within a second), or a writer that keeps no head`,
      },
    ];
  }
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
