/**
 * What an append chains to: the log's last intact record, found from its end
 * (file-tail.ts), with a torn fragment left by a crashed append located so
 * that the writer can cut it off.
 */
import type { AuditHeadReading } from "./head.js";
import { visitLinesFromEnd } from "./file-tail.js";
import { ANCHORED_GENESIS_HASH, checkAuditLine, sha256Hex } from "./record.js";

/**
 * Finds what the next record chains to: the digest of the last line that is a
 * valid record (a log without one starts a new, anchored chain). An unterminated last line that is not JSON is a torn append:
 * `tornFrom` is where it starts. Any other unterminated last line (a complete
 * record, or a damaged one) is kept, and the new records start on a line of
 * their own. When the head anchors exactly this log, its last line is the one
 * the head names (same digest), so it is not parsed again.
 */
export function chainTail(fd: number, size: number, head: AuditHeadReading): { prev: string; needsNewline: boolean; tornFrom?: number } {
  let prev = ANCHORED_GENESIS_HASH;
  let needsNewline = false;
  let tornFrom: number | undefined;
  const anchored = head.state === "present" && head.head.bytes === size ? head.head.last_hash : undefined;
  visitLinesFromEnd(fd, size, (line, terminated) => {
    // Longer than any record: damage, never a crashed append's fragment (kept; new records start on their own line).
    if (line === null) {
      if (!terminated) needsNewline = true;
      return false;
    }
    if (anchored !== undefined && terminated && sha256Hex(line) === anchored) {
      prev = anchored;
      return true;
    }
    const checked = checkAuditLine(line);
    if (!terminated) {
      if (checked.kind === "unreadable") tornFrom = size - line.length;
      else needsNewline = true;
    }
    if (checked.kind !== "record") return false;
    prev = checked.digest;
    return true;
  });
  return tornFrom === undefined ? { prev, needsNewline } : { prev, needsNewline, tornFrom };
}
