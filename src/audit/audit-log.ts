/**
 * The audit log: `<root>/audit.jsonl`, one hash-chained JSON record per line
 * (format in record.ts, docs/audit.md), anchored by `<root>/audit.head`
 * (head.ts).
 *
 * Several processes append at once (each MCP server, the operator CLI), so one
 * append is: take the cross-process lock (`<file>.lock`), read the head and the
 * file's tail (the last record; a torn fragment left by a crash is cut off),
 * write the batch's lines with O_APPEND in one write, release; fsync; then
 * move the head forward (head-advance.ts). An append takes a batch, so a
 * call's records cost one write and one fsync. The server defers what it can
 * (deferred-sync.ts): the records after a call's process started ride with
 * its next append, and the fsync and the head move happen once a second. Appends from one process are queued first, so
 * they never contend for the lock with each other. The log stays open and the
 * head is remembered between appends (log-handle.ts, head-view.ts): after a
 * fork every page an append touches costs a fault, so each append does as few
 * system calls and allocations as the checks allow.
 *
 * Appends are best-effort by design: `append` never throws and never rejects.
 * A failure is written to stderr (one line, no record content) and returned, and
 * the caller decides what it means; the broker's decisions never depend on it.
 */
import { randomUUID } from "node:crypto";
import { fstatSync, fsyncSync, ftruncateSync, mkdirSync, writeSync, type Stats } from "node:fs";
import path from "node:path";
import { LockCompromisedError } from "../state/errors.js";
import { withLockFileWithin, withSyncLockFile } from "../state/lock-file.js";
import { syncDescriptor, type LockTiming } from "../state/lock.js";
import { checkAnchor, type AnchorMarker } from "./anchor.js";
import { chainTail } from "./chain-tail.js";
import { DeferredSync, type WaitingBatch } from "./deferred-sync.js";
import { advanceAuditHead, advanceAuditHeadNow, AUDIT_EXIT_LOCK_WAIT_MS, placeFirstAuditHeadSync } from "./head-advance.js";
import { AuditHeadView } from "./head-view.js";
import { AUDIT_HEAD_VERSION, type AuditHead } from "./head.js";
import { AuditLogHandle } from "./log-handle.js";
import { auditFields, sealAuditLine, sha256Hex, type AuditFields, type AuditInput } from "./record.js";

export type { AuditEvent } from "./events.js";
export { SERVER_HEAD_DELAY_MS } from "./deferred-sync.js";
export type { AuditInput, AuditRecord } from "./record.js";

/** The audit log's path below the configuration root. */
export function auditLogPath(root: string): string {
  return path.join(root, "audit.jsonl");
}

/**
 * Lock timing shared by every writer of the file (proper-lockfile requires
 * that all holders agree). An append holds the lock for about a millisecond,
 * so `stale` only matters after a crash: a dead writer's lock is taken over
 * after 10 s. A waiter backs off from 2 ms to 50 ms for up to 20 s.
 */
export const AUDIT_LOCK_TIMING: LockTiming = Object.freeze({ stale: 10_000, update: 2_500, waitMs: 20_000 });

export type AuditAppendResult = { readonly ok: true; readonly hash: string } | { readonly ok: false; readonly error: Error };

export interface AppendOptions {
  /** Called once the records are in the file (written to the kernel), before any fsync. */
  readonly onWritten?: () => void;
  /**
   * Called once the records are written and fsynced, before the head is
   * replaced (never with `deferSync`).
   */
  readonly onDurable?: () => void;
  /**
   * Write only: no fsync, no head. The records survive a crash of this
   * process, not a power cut, until the next append that syncs (any writer's:
   * an fsync covers the whole file) makes them durable and anchors them; a
   * writer with `headDelayMs` fsyncs and anchors them within that delay.
   */
  readonly deferSync?: boolean;
  /**
   * For a writer with `headDelayMs` (otherwise an ordinary append): the
   * records wait in memory and go out with this writer's next append, or are
   * written, fsynced and anchored within the delay, or at exit; the append
   * resolves once they are in the file. A crash of this process loses them
   * while they wait.
   */
  readonly deferWrite?: boolean;
}

export interface AuditLogOptions {
  /** Where failures are reported; stderr by default (stdout belongs to JSON-RPC). */
  readonly report?: (message: string) => void;
  /**
   * When set, an append does not wait to move the head, and a `deferSync`
   * or `deferWrite` append leaves its fsync (and its write) for later: once
   * this many milliseconds have passed since the first thing left waiting,
   * or at exit, the writer writes what waits, fsyncs and moves the head
   * (deferred-sync.ts). For a long-lived writer that appends in bursts (the
   * MCP server); the head and the fsync then lag by at most this long. Unset:
   * every synced append moves the head before it resolves.
   */
  readonly headDelayMs?: number;
  /** How long the exit hook waits for the lock another writer holds (AUDIT_EXIT_LOCK_WAIT_MS unless set). */
  readonly exitLockWaitMs?: number;
}

/** Appends in flight per resolved path, so one process never contends with itself. */
const queues = new Map<string, Promise<unknown>>();

export class AuditLog {
  private readonly clock: () => Date;
  private readonly report: (message: string) => void;
  /** Set after a successful append: the directory exists, so later appends skip the mkdir. */
  private directoryReady = false;
  /** Where this writer's last append left the log, so the next one need not read it back (writeBatch). */
  private lastWrite: LastWrite | undefined;
  /** The log's descriptor, kept open across appends while the path names the same file (log-handle.ts). */
  private readonly handle: AuditLogHandle;
  /** The head as this writer last read or placed it (head-view.ts). */
  private readonly head: AuditHeadView;
  /** Records, an fsync and a head move left for later (AuditLogOptions.headDelayMs). */
  private readonly deferred: DeferredSync | undefined;
  /** Set by `finish`: nothing is deferred any more. */
  private finished = false;
  private readonly exitLockWaitMs: number;

  constructor(
    readonly file: string,
    clock: () => Date = () => new Date(),
    options: AuditLogOptions = {},
  ) {
    this.clock = clock;
    this.report = options.report ?? ((message) => process.stderr.write(message));
    this.handle = new AuditLogHandle(file);
    this.head = new AuditHeadView(file);
    this.exitLockWaitMs = options.exitLockWaitMs ?? AUDIT_EXIT_LOCK_WAIT_MS;
    const delay = options.headDelayMs;
    this.deferred =
      delay === undefined
        ? undefined
        : new DeferredSync(
            delay,
            () => {
              void this.settle();
            },
            () => {
              this.settleNow();
            },
          );
  }

  /**
   * Appends one record. Never rejects: a failure (bad input, lock timeout,
   * disk full, compromised lock) is reported once on stderr and returned.
   */
  append(input: AuditInput): Promise<AuditAppendResult> {
    return this.appendBatch([input]);
  }

  /**
   * Appends records in order under one lock, in one write and one fsync: all
   * of them reach the file or, on a failure, none of them is reported written
   * (a crash mid-write can leave a torn last line, cut off by the next append).
   * Never rejects; an empty batch is a failure.
   */
  appendBatch(inputs: readonly AuditInput[], options: AppendOptions = {}): Promise<AuditAppendResult> {
    const deferred = this.deferred;
    if (options.deferWrite === true && deferred !== undefined && !this.finished) {
      let fields: AuditFields[];
      try {
        if (inputs.length === 0) throw new TypeError("audit: an append needs at least one record");
        fields = inputs.map(auditFields);
      } catch (error) {
        return Promise.resolve(this.failed("append to", error));
      }
      return new Promise((resolve) => {
        deferred.hold({
          fields,
          settle: (outcome) => {
            if (typeof outcome !== "string") {
              resolve({ ok: false, error: outcome });
              return;
            }
            options.onWritten?.();
            resolve({ ok: true, hash: outcome });
          },
        });
      });
    }
    return this.enqueue(() => this.appendNow(inputs.map(auditFields), options, this.deferred?.takeRecords() ?? [])).then(
      (hash): AuditAppendResult => ({ ok: true, hash }),
      (error: unknown): AuditAppendResult => this.failed("append to", error),
    );
  }

  /**
   * Writes, fsyncs and anchors now what is waiting (AuditLogOptions.headDelayMs),
   * after the appends already queued. Never rejects; a failure is reported.
   */
  settle(): Promise<void> {
    return this.enqueue(() => this.flushDeferred());
  }

  /**
   * For a server shutting down: settles what waits, and from then on every
   * append is written and fsynced at once (the head still follows within the
   * delay or at exit). Never rejects.
   */
  finish(): Promise<void> {
    this.finished = true;
    return this.settle();
  }

  /** Forgets what this writer knew of the files after a failure, reports it once and returns it. */
  private failed(what: string, error: unknown): { readonly ok: false; readonly error: Error } {
    this.directoryReady = false;
    this.handle.close();
    this.head.forget();
    this.lastWrite = undefined;
    const failure = error instanceof Error ? error : new Error(String(error));
    this.report(`torii: audit: could not ${what} ${this.file}: ${failure.message}\n`);
    return { ok: false, error: failure };
  }

  /** Runs `task` after this process's earlier appends to the same file (and their head moves). */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const key = path.resolve(this.file);
    const run = (queues.get(key) ?? Promise.resolve()).then(task);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return run;
  }

  /**
   * Writes the records waiting (one synced append), then fsyncs what this
   * writer left unsynced and moves the head over it (queued like an append).
   * A failure is reported; the head stays behind.
   */
  private async flushDeferred(): Promise<void> {
    const deferred = this.deferred;
    if (deferred === undefined) return;
    const records = deferred.takeRecords();
    try {
      if (records.length > 0) await this.appendNow([], {}, records);
      const owed = deferred.takeOwed();
      if (owed === undefined) return;
      if (!owed.synced) {
        // Bytes of a log that was since moved away or replaced are not this head's to anchor.
        const fd = this.handle.descriptorOf(owed.ino);
        if (fd === undefined) return;
        await syncDescriptor(fd);
      }
      await this.moveHead(owed.head);
    } catch (error) {
      this.failed("write, fsync or anchor", error);
    }
  }

  /**
   * flushDeferred for a process that is exiting: synchronous, and only if the
   * lock is free within `exitLockWaitMs` (otherwise the records waiting are
   * lost and reported, and the head anchors a prefix). Throws nothing.
   */
  private settleNow(): void {
    const deferred = this.deferred;
    if (deferred === undefined) return;
    const records = deferred.takeRecords();
    try {
      let owed = deferred.takeOwed();
      if (records.length > 0) {
        const locked = withLockFileWithin(this.file, this.exitLockWaitMs, () => this.writeOpen(records.flatMap((batch) => batch.fields)));
        if (!locked.held) throw new Error("the log was locked at exit");
        settleRiders(records, locked.value.hashes);
        owed = { head: headOf(locked.value), ino: locked.value.ino, synced: false };
      }
      if (owed === undefined) return;
      const fd = this.handle.descriptorOf(owed.ino);
      if (fd === undefined) return;
      if (!owed.synced) fsyncSync(fd);
      advanceAuditHeadNow(owed.head, this.head, this.exitLockWaitMs);
    } catch (error) {
      for (const batch of records) batch.settle(error as Error);
      this.failed("write, at exit,", error);
    }
  }

  /** Moves the head forward to `next`; the writer remembers the bytes it placed. */
  private async moveHead(next: AuditHead): Promise<void> {
    const placed = await advanceAuditHead(this.file, next, AUDIT_LOCK_TIMING, this.head);
    if (placed !== undefined && this.lastWrite?.size === next.bytes) this.lastWrite = { ...this.lastWrite, headText: Buffer.from(placed).toString("latin1") };
  }

  /**
   * The append in three steps, so that the lock is never held across a wait:
   * under the lock, synchronously, check the tail and the head and write the
   * lines (a few system calls, no thread-pool round trip); fsync outside it;
   * then move the head forward under the lock again (head-advance.ts). An fsync
   * flushes the whole file, so a head is only ever written for bytes that are
   * on disk, whichever writer wrote them.
   */
  private async appendNow(own: readonly AuditFields[], options: AppendOptions, riders: readonly WaitingBatch[]): Promise<string> {
    const batch = riders.length === 0 ? own : [...riders.flatMap((waiting) => waiting.fields), ...own];
    let written: OpenWrite;
    try {
      if (batch.length === 0) throw new TypeError("audit: an append needs at least one record");
      if (!this.directoryReady) mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      written = await withSyncLockFile(this.file, AUDIT_LOCK_TIMING, () => {
        const batchWritten = this.writeOpen(batch);
        // The lines are in the file: a caller waiting for that need not wait for the lock's release.
        options.onWritten?.();
        return batchWritten;
      });
      this.directoryReady = true;
    } catch (error) {
      this.lastWrite = undefined;
      const failure =
        // A lost lock is reported after the body, so the lines are already in the file.
        error instanceof LockCompromisedError
          ? new Error(`the record was written, but the lock was lost (${error.reason}); the chain may fork`, { cause: error })
          : error;
      for (const waiting of riders) waiting.settle(failure instanceof Error ? failure : new Error(String(failure)));
      throw failure;
    }
    settleRiders(riders, written.hashes);
    if (written.startedEmpty) {
      options.onDurable?.();
      return written.hash;
    }
    const next = headOf(written);
    if (options.deferSync === true) {
      this.deferred?.owe({ head: next, ino: written.ino, synced: false });
      return written.hash;
    }
    try {
      await syncDescriptor(written.fd);
    } catch (error) {
      this.lastWrite = undefined;
      throw error;
    }
    options.onDurable?.();
    if (this.deferred !== undefined) {
      this.deferred.owe({ head: next, ino: written.ino, synced: true });
      return written.hash;
    }
    try {
      await this.moveHead(next);
    } catch (error) {
      throw new Error(`the records were written, but audit.head was not updated (${(error as Error).message})`, { cause: error });
    }
    return written.hash;
  }

  /**
   * Under the lock: opens the log (or reuses its descriptor) and writes the
   * batch. A new log gets its head before the lock is released (once per
   * log): otherwise the next writer would find anchored lines without a head
   * and record a deleted head.
   */
  private writeOpen(batch: readonly AuditFields[]): OpenWrite {
    // Kept open for the next append; closed when an append fails.
    const opened = this.handle.open();
    const written = this.writeBatch(opened.fd, opened.stats, batch);
    if (written.startedEmpty) {
      fsyncSync(opened.fd);
      const placed = placeFirstAuditHeadSync(this.file, headOf(written));
      this.head.placed(placed);
      if (this.lastWrite !== undefined) this.lastWrite = { ...this.lastWrite, headText: Buffer.from(placed).toString("latin1") };
    }
    return { ...written, fd: opened.fd, ino: opened.stats.ino };
  }

  /**
   * Under the lock: checks the tail and the head, writes the batch (after a
   * marker, if any) to the page cache. When the log and its head are exactly
   * as this writer's last append left them (same file, size, mtime and head
   * bytes), the tail and the anchor were checked then and are not read again.
   */
  private writeBatch(fd: number, stats: Stats, batch: readonly AuditFields[]): WrittenBatch {
    const headText = this.head.text();
    const last = this.lastWrite;
    const unchanged =
      last !== undefined &&
      last.ino === stats.ino &&
      last.size === stats.size &&
      last.mtimeMs === stats.mtimeMs &&
      last.ctimeMs === stats.ctimeMs &&
      last.headText === headText;
    const tail = unchanged ? { prev: last.prev, needsNewline: false } : chainTail(fd, stats.size, this.head.reading());
    // A torn fragment at the end is a crashed append's: cut it, so that only the last line can ever be torn.
    if (tail.tornFrom !== undefined) ftruncateSync(fd, tail.tornFrom);
    const size = tail.tornFrom ?? stats.size;
    const anchor = unchanged ? { lines: last.lines } : checkAnchor(fd, size, this.head.reading(), tail.prev);
    const records = anchor.marker === undefined ? batch : [markerFields(anchor.marker), ...batch];
    let prev = tail.prev;
    const hashes: string[] = [];
    const lines = records.map((fields) => {
      const sealed = sealAuditLine(fields, this.clock(), prev);
      prev = sha256Hex(sealed.line);
      hashes.push(sealed.hash);
      return sealed.line;
    });
    const bytes = Buffer.from(`${tail.needsNewline ? "\n" : ""}${lines.join("\n")}\n`, "utf8");
    const bytesWritten = writeSync(fd, bytes, 0, bytes.length, null);
    if (bytesWritten !== bytes.length) throw new Error(`short write (${bytesWritten} of ${bytes.length} bytes)`);
    const terminated = anchor.lines + lines.length + (tail.needsNewline ? 1 : 0);
    const after = fstatSync(fd);
    this.lastWrite = { ino: after.ino, size: after.size, mtimeMs: after.mtimeMs, ctimeMs: after.ctimeMs, headText, prev, lines: terminated };
    // The batch's own records' hashes, without a marker's.
    const own = hashes.slice(records.length - batch.length);
    return { lines: terminated, bytes: size + bytes.length, digest: prev, hash: own.at(-1) ?? "", hashes: own, startedEmpty: size === 0 };
  }
}

interface LastWrite {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** The head file's text as this writer last saw or wrote it; undefined when there was none. */
  readonly headText: string | undefined;
  readonly prev: string;
  readonly lines: number;
}

/** Where an append left the log: what the next head holds, and the last record's own hash. */
interface WrittenBatch {
  readonly lines: number;
  readonly bytes: number;
  /** SHA-256 of the last line: the head's `last_hash`, the next record's `prev`. */
  readonly digest: string;
  readonly hash: string;
  /** Each record's own hash, in the batch's order. */
  readonly hashes: readonly string[];
  /** The log was empty before this batch: its first head is placed under the same lock. */
  readonly startedEmpty: boolean;
}

/** A written batch and the descriptor (and the file) it went to. */
interface OpenWrite extends WrittenBatch {
  readonly fd: number;
  readonly ino: number;
}

/** Tells each batch that rode with an append the hash of its last record. */
function settleRiders(riders: readonly WaitingBatch[], hashes: readonly string[]): void {
  let end = 0;
  for (const waiting of riders) {
    end += waiting.fields.length;
    waiting.settle(hashes[end - 1] ?? "");
  }
}

/** The head that anchors the log as `written` left it. */
function headOf(written: WrittenBatch): AuditHead {
  return { v: AUDIT_HEAD_VERSION, lines: written.lines, bytes: written.bytes, last_hash: written.digest };
}

/** The record a writer puts first in its batch when the head did not match (anchor.ts). */
function markerFields(marker: AnchorMarker): AuditFields {
  return auditFields({ call_id: randomUUID(), scope: "audit", event: marker.event, detail: marker.detail });
}
