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
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
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

/** Reads the head of `logFile`. Errors other than a missing file are thrown. */
export async function readAuditHead(logFile: string): Promise<AuditHeadReading> {
  try {
    return parseAuditHead(await readFile(auditHeadPath(logFile)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
    throw error;
  }
}

/** readAuditHead for synchronous callers (the operator CLI). */
export function readAuditHeadSync(logFile: string): AuditHeadReading {
  try {
    return parseAuditHead(readFileSync(auditHeadPath(logFile)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { state: "missing" };
    throw error;
  }
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
