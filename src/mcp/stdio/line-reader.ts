/**
 * Splits the stdin byte stream into newline-terminated lines without ever
 * holding more than `maxLineBytes` of one line. A longer line is not kept: its
 * bytes go through a constant-memory scan for the top-level id and are dropped
 * until the next newline, then the reader reports it as oversized and carries
 * on with the next line.
 *
 * Lines are split on the byte 0x0A only, so a multi-byte UTF-8 character split
 * across chunks is whole again in the line handed on (0x0A never occurs inside
 * a multi-byte sequence). Decoding, CR and UTF-8 validity are the caller's.
 */
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { TopLevelIdScanner } from "./top-level-id.js";

const NEWLINE = 0x0a;

export interface LineSink {
  /** One complete line, without its newline; at most `maxLineBytes` long. */
  line(bytes: Buffer): void;
  /** A line longer than `maxLineBytes` ended; `bytes` is its length without the newline. */
  oversized(id: RequestId | undefined, bytes: number): void;
}

export class BoundedLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding: TopLevelIdScanner | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  /** Takes the next chunk of the stream; calls the sink once per line that ends in it. */
  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.take(chunk.subarray(start), true);
        return;
      }
      this.take(chunk.subarray(start, newline), false);
      this.endLine();
      start = newline + 1;
    }
  }

  /** Forgets a partial line (the stream ended or the transport closed before its newline). */
  reset(): void {
    this.parts = [];
    this.size = 0;
    this.discarding = undefined;
  }

  private take(segment: Buffer, outlivesChunk: boolean): void {
    if (segment.length === 0) return;
    this.size += segment.length;
    if (this.discarding !== undefined) {
      this.discarding.scan(segment);
      return;
    }
    if (this.size <= this.maxLineBytes) {
      // A tail kept for the next chunk is copied, so it does not pin the whole chunk.
      this.parts.push(outlivesChunk ? Buffer.from(segment) : segment);
      return;
    }
    const scanner = new TopLevelIdScanner();
    for (const part of this.parts) scanner.scan(part);
    scanner.scan(segment);
    this.parts = [];
    this.discarding = scanner;
  }

  private endLine(): void {
    const { parts, size, discarding } = this;
    this.reset();
    if (discarding !== undefined) this.sink.oversized(discarding.id(), size);
    else this.sink.line(parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, size));
  }
}
