/**
 * Reading a log file's lines from the end, a chunk at a time, so that an append
 * (which needs only the last record) and `audit tail` cost the same on a
 * 10-line log and a 10-million-line one.
 */
import { readSync } from "node:fs";

const CHUNK_BYTES = 16 * 1024;
const NEWLINE = 0x0a;

/**
 * Calls `visit` with the lines of the first `size` bytes of `fd`, last line
 * first, until it returns true or the start of the file is reached. A final
 * line without a newline is visited with `terminated: false` (an empty one,
 * after a file's closing newline, is not visited).
 *
 * Reads are positional and synchronous: a few KiB from a local file, done while
 * the caller holds the log's lock.
 */
export function visitLinesFromEnd(fd: number, size: number, visit: (line: Buffer, terminated: boolean) => boolean): void {
  let position = size;
  // Bytes [position, position + pending.length) not yet visited; their first line may be incomplete.
  let pending = Buffer.alloc(0);
  let sawNewline = false;
  for (;;) {
    let newline = pending.lastIndexOf(NEWLINE);
    while (newline !== -1) {
      const line = pending.subarray(newline + 1);
      const stop = sawNewline ? visit(line, true) : line.length > 0 && visit(line, false);
      if (stop) return;
      sawNewline = true;
      pending = pending.subarray(0, newline);
      newline = pending.lastIndexOf(NEWLINE);
    }
    if (position === 0) {
      if (pending.length > 0 || sawNewline) visit(pending, sawNewline);
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
    pending = Buffer.concat([chunk, pending]);
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
