/**
 * What the writer makes of the head it finds, before it appends.
 *
 * The next head always anchors the whole log, so whatever the writer finds
 * wrong with the current one would be forgotten by the next append. Instead it
 * is written into the chain, as the first record of the append: a marker that
 * `verify` reports, and that no one can remove without rewriting every record
 * after it (and the head).
 *
 * - head matches the log's end: nothing to say;
 * - head anchors a prefix of the log (a crash after the log's fsync and before
 *   the head's rename, or an append by a Torii without heads): nothing to say;
 * - no head, empty log: a new log;
 * - no head, lines in the log: `audit-anchored` (a log from before heads, or a
 *   deleted head; `verify` tells them apart by counting markers);
 * - head unreadable, log shorter than the head, or the anchored line changed:
 *   `audit-head-mismatch`, with what was found (sizes and counts, never content).
 */
import { countLines, visitLinesFromEnd } from "./file-tail.js";
import type { AuditHeadReading } from "./head.js";
import { sha256Hex } from "./record.js";

export interface AnchorMarker {
  readonly event: "audit-anchored" | "audit-head-mismatch";
  readonly detail: string;
}

export interface AnchorCheck {
  /** Newline-terminated lines in the log before this append. */
  readonly lines: number;
  readonly marker?: AnchorMarker;
}

/**
 * Compares the log (its first `size` bytes, open as `fd`) with its head.
 * `lastDigest` is the digest of the log's last record, known to the writer already.
 */
export function checkAnchor(fd: number, size: number, reading: AuditHeadReading, lastDigest: string): AnchorCheck {
  if (reading.state === "missing") {
    if (size === 0) return { lines: 0 };
    const lines = countLines(fd, 0, size);
    return { lines, marker: { event: "audit-anchored", detail: `audit.head was missing: anchoring the existing ${lines} line(s) from here` } };
  }
  if (reading.state === "unreadable") return mismatch(fd, size, "audit.head was unreadable");
  const { head } = reading;
  if (head.bytes === size && head.last_hash === lastDigest) return { lines: head.lines };
  if (head.bytes > size) {
    return mismatch(fd, size, `the log had ${size} bytes but its head anchored ${head.bytes} bytes and ${head.lines} line(s): records were cut off the end`);
  }
  if (digestOfLineEndingAt(fd, head.bytes) === head.last_hash) return { lines: head.lines + countLines(fd, head.bytes, size) };
  return mismatch(fd, size, `line ${head.lines} (ending at byte ${head.bytes}) no longer matched its head: the log was edited`);
}

function mismatch(fd: number, size: number, detail: string): AnchorCheck {
  return { lines: countLines(fd, 0, size), marker: { event: "audit-head-mismatch", detail } };
}

/** The digest of the newline-terminated line that ends exactly at byte `end`, if there is one. */
function digestOfLineEndingAt(fd: number, end: number): string | undefined {
  let digest: string | undefined;
  visitLinesFromEnd(fd, end, (line, terminated) => {
    // A line longer than any record is none the head anchored.
    if (terminated && line !== null) digest = sha256Hex(line);
    return true;
  });
  return digest;
}
