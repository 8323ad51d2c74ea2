/**
 * The audit log: `<root>/audit.jsonl`, one hash-chained JSON record per line
 * (format in record.ts, docs/audit.md).
 *
 * Several processes append at once (each MCP server, the operator CLI), so one
 * append is: take the cross-process lock (`withFileLock`, `<file>.lock`), read
 * the file's tail to find the last record, write one line with O_APPEND, fsync,
 * release. Appends from one process are queued first, so they never contend for
 * the lock with each other.
 *
 * Appends are best-effort by design: `append` never throws and never rejects.
 * A failure is written to stderr (one line, no record content) and returned, and
 * the caller decides what it means; the broker's decisions never depend on it.
 */
import { constants, type Stats } from "node:fs";
import { mkdir, open, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { LockCompromisedError } from "../state/errors.js";
import { withFileLock, type LockTiming } from "../state/lock.js";
import { visitLinesFromEnd } from "./file-tail.js";
import { auditFields, checkAuditLine, GENESIS_HASH, sealAuditRecord, type AuditInput } from "./record.js";

export type { AuditEvent } from "./events.js";
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

export interface AuditLogOptions {
  /** Where failures are reported; stderr by default (stdout belongs to JSON-RPC). */
  readonly report?: (message: string) => void;
}

/** Appends in flight per resolved path, so one process never contends with itself. */
const queues = new Map<string, Promise<unknown>>();

const OPEN_FLAGS = constants.O_RDWR | constants.O_APPEND | (process.platform === "win32" ? 0 : constants.O_NOFOLLOW);

export class AuditLog {
  private readonly clock: () => Date;
  private readonly report: (message: string) => void;
  /** Set after a successful append: the directory exists, so later appends skip the mkdir. */
  private directoryReady = false;

  constructor(
    readonly file: string,
    clock: () => Date = () => new Date(),
    options: AuditLogOptions = {},
  ) {
    this.clock = clock;
    this.report = options.report ?? ((message) => process.stderr.write(message));
  }

  /**
   * Appends one record. Never rejects: a failure (bad input, lock timeout,
   * disk full, compromised lock) is reported once on stderr and returned.
   */
  append(input: AuditInput): Promise<AuditAppendResult> {
    const key = path.resolve(this.file);
    const run = (queues.get(key) ?? Promise.resolve()).then(() => this.appendNow(input));
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return run.then(
      (hash): AuditAppendResult => ({ ok: true, hash }),
      (error: unknown): AuditAppendResult => {
        this.directoryReady = false;
        const failure = error instanceof Error ? error : new Error(String(error));
        this.report(`torii: audit: could not append to ${this.file}: ${failure.message}\n`);
        return { ok: false, error: failure };
      },
    );
  }

  private async appendNow(input: AuditInput): Promise<string> {
    const fields = auditFields(input);
    if (!this.directoryReady) await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    try {
      return await withFileLock(this.file, AUDIT_LOCK_TIMING, async () => {
        const handle = await openAuditFile(this.file);
        try {
          const stats = await handle.stat();
          if (!stats.isFile()) throw new Error("is not a regular file");
          const { prev, needsNewline } = chainHead(handle, stats);
          const { record, line } = sealAuditRecord(fields, this.clock(), prev);
          const bytes = Buffer.from(`${needsNewline ? "\n" : ""}${line}\n`, "utf8");
          const { bytesWritten } = await handle.write(bytes, 0, bytes.length, null);
          if (bytesWritten !== bytes.length) throw new Error(`short write (${bytesWritten} of ${bytes.length} bytes)`);
          await handle.sync();
          this.directoryReady = true;
          return record.hash;
        } finally {
          await handle.close();
        }
      });
    } catch (error) {
      // Reported after the body, so the line is already in the file.
      if (error instanceof LockCompromisedError) {
        throw new Error(`the record was written, but the lock was lost (${error.reason}); the chain may fork`, { cause: error });
      }
      throw error;
    }
  }
}

/** Opens the log for reading and appending; creates it (0600) exclusively when missing, never through a symlink. */
async function openAuditFile(file: string): Promise<FileHandle> {
  try {
    return await open(file, OPEN_FLAGS | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return open(file, OPEN_FLAGS);
}

/**
 * Finds what the next record chains to: the digest of the last line that is a
 * valid record, skipping a torn tail (an interrupted append). When the file does
 * not end with a newline, the new record starts on a line of its own.
 */
function chainHead(handle: FileHandle, stats: Stats): { prev: string; needsNewline: boolean } {
  let prev = GENESIS_HASH;
  let needsNewline = false;
  visitLinesFromEnd(handle.fd, stats.size, (line, terminated) => {
    if (!terminated) needsNewline = true;
    const checked = checkAuditLine(line);
    if (checked.kind !== "record") return false;
    prev = checked.digest;
    return true;
  });
  return { prev, needsNewline };
}
