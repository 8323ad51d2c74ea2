/**
 * Splits the stdin byte stream into newline-terminated lines without ever
 * holding more than `maxLineBytes` of one line. A longer line is not kept: its
 * bytes go through a constant-memory scan for the top-level id and are dropped
 * until the next newline, then the reader reports it as oversized and carries
 * on with the next line.
 *
 * The sink decides, line by line, whether the reader goes on (`accepting`): a
 * chunk is not handed on whole, so a bound the sink keeps (held lines, bytes)
 * holds whatever the chunk size (one read of a pipe takes up to 64 KiB, some
 * thousand short lines). What the sink does not accept yet stays unscanned in
 * the reader (the rest of one chunk, copied) until `resume()`; the sink stops
 * the stream meanwhile, so that rest does not grow.
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
  /** Whether the next line may be read now; asked before each one. */
  accepting(): boolean;
}

export class BoundedLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private discarding: TopLevelIdScanner | undefined;
  /** Bytes received but not scanned yet, because the sink was not accepting. */
  private unread: Buffer | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  /** Takes the next chunk of the stream; calls the sink once per line that ends in it, while it accepts (after what is unread). */
  push(chunk: Buffer): void {
    if (this.unread === undefined) this.scan(chunk);
    else {
      this.unread = Buffer.concat([this.unread, chunk]);
      this.resume();
    }
  }

  /** Whether bytes wait that the sink did not accept yet. */
  hasUnread(): boolean {
    return this.unread !== undefined;
  }

  /** Reads on from what the sink did not accept yet, while it accepts. */
  resume(): void {
    const { unread } = this;
    if (unread === undefined) return;
    this.unread = undefined;
    this.scan(unread);
  }

  private scan(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      if (!this.sink.accepting()) {
        // A copy: what is left may be a small part of a large chunk, which it would keep alive.
        this.unread = Buffer.from(chunk.subarray(start));
        return;
      }
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

  /** Forgets a partial line (the stream ended or the transport closed before its newline) and what is unread. */
  reset(): void {
    this.forgetLine();
    this.unread = undefined;
  }

  private forgetLine(): void {
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
    this.forgetLine();
    if (discarding !== undefined) this.sink.oversized(discarding.id(), size);
    else this.sink.line(parts.length === 1 && parts[0] !== undefined ? parts[0] : Buffer.concat(parts, size));
  }
}
