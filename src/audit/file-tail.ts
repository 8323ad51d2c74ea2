/**
 * Reading a log file's lines from the end, a chunk at a time, so that an append
 * (which needs only the last record) and `audit tail` cost the same on a
 * 10-line log and a 10-million-line one.
 */
import { readSync } from "node:fs";

const CHUNK_BYTES = 16 * 1024;
const NEWLINE = 0x0a;

/**
 * The longest line a reader holds: far over the longest record Torii writes
 * (every field is cut to a few hundred code points, about 4 KiB in all). A
 * longer line can only be damage or tampering and is visited as `null`, its
 * bytes skipped, not gathered: before, one such line (a 16 MiB one took 5 s)
 * kept the writer under the log's lock, its event loop blocked, for as long
 * as it took to gather it chunk by chunk, long enough for other writers to
 * time out or take the lock over as stale.
 */
export const MAX_AUDIT_LINE_BYTES = 64 * 1024;

/**
 * Calls `visit` with the lines of the first `size` bytes of `fd`, last line
 * first, until it returns true or the start of the file is reached. A final
 * line without a newline is visited with `terminated: false` (an empty one,
 * after a file's closing newline, is not visited). A line longer than
 * MAX_AUDIT_LINE_BYTES is visited as `null`.
 *
 * Reads are positional and synchronous: a few KiB from a local file, done while
 * the caller holds the log's lock.
 */
export function visitLinesFromEnd(fd: number, size: number, visit: (line: Buffer | null, terminated: boolean) => boolean): void {
  let position = size;
  // Bytes [position, position + pending.length) not yet visited; their first line may be incomplete.
  let pending = Buffer.alloc(0);
  // The line being gathered is longer than MAX_AUDIT_LINE_BYTES: its bytes are dropped until its start.
  let oversized = false;
  let sawNewline = false;
  for (;;) {
    let newline = pending.lastIndexOf(NEWLINE);
    while (newline !== -1) {
      const line = oversized || pending.length - newline - 1 > MAX_AUDIT_LINE_BYTES ? null : pending.subarray(newline + 1);
      oversized = false;
      const stop = sawNewline ? visit(line, true) : (line === null || line.length > 0) && visit(line, false);
      if (stop) return;
      sawNewline = true;
      pending = pending.subarray(0, newline);
      newline = pending.lastIndexOf(NEWLINE);
    }
    if (pending.length > MAX_AUDIT_LINE_BYTES) {
      oversized = true;
      pending = Buffer.alloc(0);
    }
    if (position === 0) {
      if (oversized || pending.length > MAX_AUDIT_LINE_BYTES) visit(null, sawNewline);
      else if (pending.length > 0 || sawNewline) visit(pending, sawNewline);
      return;
    }
    const length = Math.min(CHUNK_BYTES, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const got = readSync(fd, chunk, read, length - read, position + read);
      if (got === 0) throw new Error("the audit log shrank while it was being read");
      read += got;
    }
    pending = pending.length === 0 ? chunk : Buffer.concat([chunk, pending]);
  }
}

/** Counts the newline-terminated lines in bytes [from, to) of `fd`, a chunk at a time. */
export function countLines(fd: number, from: number, to: number): number {
  const chunk = Buffer.alloc(Math.min(1024 * 1024, Math.max(to - from, 1)));
  let count = 0;
  for (let position = from; position < to;) {
    const got = readSync(fd, chunk, 0, Math.min(chunk.length, to - position), position);
    if (got === 0) throw new Error("the audit log shrank while it was being read");
    for (let at = chunk.indexOf(NEWLINE); at !== -1 && at < got; at = chunk.indexOf(NEWLINE, at + 1)) count += 1;
    position += got;
  }
  return count;
}
