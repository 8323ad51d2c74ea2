/**
 * Diagnostics for the client's stderr, bounded: a client that does not read
 * stderr must not grow the server's memory. Node writes stderr to a pipe
 * asynchronously, so every line it cannot take yet waits in memory; a client
 * that floods invalid lines (each one logged as refused) while it never reads
 * stderr grew that without end (100,000 lines: 10 MB). Past `backlogBytes`
 * still unread, lines are dropped and counted, and the next line written says
 * how many were.
 */
import type { Writable } from "node:stream";

/** How many bytes of diagnostics may wait for the client to read stderr. */
export const STDERR_BACKLOG_BYTES = 1024 * 1024;

/** Writes one line per call to `stream`, best effort (a write that throws is reported by `failed`), dropping lines past the backlog. */
export function boundedLineWriter(stream: Writable, backlogBytes: number, failed: () => void): (line: string) => void {
  let dropped = 0;
  return (line) => {
    if (stream.writableLength > backlogBytes) {
      dropped += 1;
      return;
    }
    const note = dropped > 0 ? `torii: ${dropped} diagnostic line(s) dropped: stderr was not read\n` : "";
    dropped = 0;
    try {
      stream.write(`${note}${line}\n`);
    } catch {
      failed();
    }
  };
}
