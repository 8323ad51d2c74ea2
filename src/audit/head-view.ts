/**
 * What one writer knows of `audit.head`, so that an append reads the head
 * only when it changed.
 *
 * Every append checks the head under the lock (anchor.ts), and moving it
 * forward checks it again. Reading it is an open, a read and a close, and
 * parsing it a schema check; instead the writer keeps the head's bytes with
 * the file's identity when it last read or placed it (device, inode, size,
 * modification and change times, from `lstat`). The head is only ever
 * replaced by a rename (a new inode) or, by someone else, edited in place
 * (a new change time, which no one can set back), so an equal identity means
 * equal bytes, and one `lstat` replaces the read.
 */
import { lstatSync, type Stats } from "node:fs";
import { auditHeadPath, parseAuditHead, readHeadBytes, type AuditHeadReading } from "./head.js";

interface KnownHead {
  readonly identity: Stats | undefined;
  /** The head's bytes as latin1 text (one character per byte); undefined when there is none. */
  readonly text: string | undefined;
  /** Parsed on first use. */
  reading?: AuditHeadReading;
}

export class AuditHeadView {
  readonly headFile: string;
  private known: KnownHead | undefined;

  constructor(readonly logFile: string) {
    this.headFile = auditHeadPath(logFile);
  }

  /**
   * For the lock holder: the head's text now (latin1; undefined when there is
   * none), read from the file only when its identity changed.
   */
  text(): string | undefined {
    const identity = lstatSync(this.headFile, { throwIfNoEntry: false });
    if (this.known !== undefined && sameFile(this.known.identity, identity)) return this.known.text;
    const text = identity === undefined ? undefined : readHeadText(this.headFile);
    this.known = { identity, text };
    return text;
  }

  /** The head `text()` returned, parsed (once per head). */
  reading(): AuditHeadReading {
    const known = this.known;
    if (known === undefined) return { state: "missing" };
    known.reading ??= known.text === undefined ? { state: "missing" } : parseAuditHead(Buffer.from(known.text, "latin1"));
    return known.reading;
  }

  /** For the lock holder that has just renamed `bytes` into place as the head. */
  placed(bytes: Uint8Array): void {
    this.known = { identity: lstatSync(this.headFile, { throwIfNoEntry: false }), text: Buffer.from(bytes).toString("latin1") };
  }

  /** Forgets the head (after a failure): the next `text()` reads it. */
  forget(): void {
    this.known = undefined;
  }
}

/** Whether two `lstat`s found the same, unchanged file (or both no file). */
function sameFile(a: Stats | undefined, b: Stats | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.mode === b.mode;
}

/**
 * The head's text; undefined when it was removed since the `lstat`. A link,
 * FIFO, device or oversized file gives "" (unreadable), read without blocking
 * or following it (head.ts, readHeadBytes).
 */
function readHeadText(headFile: string): string | undefined {
  return readHeadBytes(headFile)?.toString("latin1");
}
