/**
 * The audit log's anchor: `audit.head` beside `audit.jsonl`, one JSON line
 * holding how far the log reached after the last append (lines, bytes) and the
 * digest of its last line. A hash chain alone cannot show that records were cut
 * off its end; the head can, as long as it is not rewritten along with the log
 * (docs/audit.md says who can do that).
 *
 * The writer replaces the head atomically (temp file, fsync, rename) after each
 * append, under the log's lock, so a reader or a crash sees an old or a new
 * head, never a torn one. A crash between the log's fsync and the rename leaves
 * a head that anchors a prefix of the log: readers accept that.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import path from "node:path";
import * as z from "zod";

export const AUDIT_HEAD_VERSION = 1;

export interface AuditHead {
  readonly v: typeof AUDIT_HEAD_VERSION;
  /** Newline-terminated lines in the log when the head was written. */
  readonly lines: number;
  /** The log's size in bytes when the head was written; the last line ends here. */
  readonly bytes: number;
  /** SHA-256 (hex) of the last line's bytes: the `prev` of the next record. */
  readonly last_hash: string;
}

/** What a reader found where the head should be. */
export type AuditHeadReading =
  { readonly state: "present"; readonly head: AuditHead } | { readonly state: "missing" } | { readonly state: "unreadable"; readonly reason: string };

const headSchema = z.strictObject({
  v: z.literal(AUDIT_HEAD_VERSION),
  lines: z.int().min(1),
  bytes: z.int().min(1),
  last_hash: z.string().regex(/^[0-9a-f]{64}$/),
});

/** `<dir>/audit.head` for `<dir>/audit.jsonl`; any other log name gets `.head` appended. */
export function auditHeadPath(logFile: string): string {
  const base = path.basename(logFile, ".jsonl");
  return path.join(path.dirname(logFile), `${base}.head`);
}

/** The head's bytes: its fields in a fixed order, one line. */
export function serialiseAuditHead(head: AuditHead): Uint8Array {
  const { v, lines, bytes, last_hash } = head;
  return Buffer.from(`${JSON.stringify({ v, lines, bytes, last_hash })}\n`, "utf8");
}

/**
 * The most a head file may hold: a head is one short line (about 130 bytes).
 * Anything longer is no head, and is not read.
 */
export const MAX_AUDIT_HEAD_BYTES = 4096;

/** What readHeadBytes gives for a head path that is not a regular file of at most MAX_AUDIT_HEAD_BYTES: no head's bytes. */
const NOT_A_HEAD = Buffer.alloc(0);

const HEAD_OPEN_FLAGS = constants.O_RDONLY | (process.platform === "win32" ? 0 : constants.O_NOFOLLOW | constants.O_NONBLOCK);

/**
 * The head file's bytes, read without following a symbolic link, without
 * blocking on a FIFO or a device, and never more than MAX_AUDIT_HEAD_BYTES:
 * the writer reads the head under the log's lock, so a head path pointing at
 * `/dev/zero`, a FIFO or a huge file must not hang it or fill its memory.
 * Such a path gives empty bytes (an unreadable head, which the writer records
 * as `audit-head-mismatch` and replaces). Undefined when there is no file.
 *
 * @throws other file-system errors (permissions).
 */
export function readHeadBytes(headFile: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(headFile, HEAD_OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    // O_NOFOLLOW on a symbolic link.
    if (code === "ELOOP" || code === "EMLINK") return NOT_A_HEAD;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_AUDIT_HEAD_BYTES) return NOT_A_HEAD;
    const buffer = Buffer.alloc(MAX_AUDIT_HEAD_BYTES + 1);
    let length = 0;
    for (let got = -1; got !== 0 && length < buffer.length; length += got) got = readSync(fd, buffer, length, buffer.length - length, length);
    return length > MAX_AUDIT_HEAD_BYTES ? NOT_A_HEAD : buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** Reads the head of `logFile` (readHeadBytes: a link, FIFO or oversized file is unreadable). Errors other than a missing file are thrown. */
export function readAuditHead(logFile: string): Promise<AuditHeadReading> {
  try {
    return Promise.resolve(readAuditHeadSync(logFile));
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** readAuditHead for synchronous callers (the operator CLI). */
export function readAuditHeadSync(logFile: string): AuditHeadReading {
  const bytes = readHeadBytes(auditHeadPath(logFile));
  return bytes === undefined ? { state: "missing" } : parseAuditHead(bytes);
}

/** What a head's bytes say; anything but a valid head is `unreadable` (never quoted). */
export function parseAuditHead(bytes: Uint8Array): AuditHeadReading {
  try {
    const parsed = headSchema.safeParse(JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)));
    if (parsed.success) return { state: "present", head: parsed.data };
  } catch {
    // Not UTF-8 JSON: reported below without quoting it.
  }
  return { state: "unreadable", reason: "audit.head is not a valid head" };
}
