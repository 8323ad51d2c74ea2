/**
 * Moving `audit.head` forward after an append whose records are on disk.
 *
 * The new head is staged in a temp file beside it and fsynced without the lock
 * (a crash leaves at most a stray temp file, never read as a head); then, under
 * the log's lock and without waiting on anything, it is renamed into place,
 * unless another writer has already anchored as far or further (its fsync
 * covered these bytes too, so the newer head is the right one). Without the
 * lock, two writers could put the older of their heads in place last, and
 * `verify` would warn about a lagging head. The directory is not fsynced: if a
 * crash loses the rename, the older head anchors a prefix of the log, which
 * readers accept.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { exclusiveCreateFlags, tempFilePrefix } from "../state/atomic-write.js";
import { withLockFileWithin, withSyncLockFile } from "../state/lock-file.js";
import { syncDescriptor, type LockTiming } from "../state/lock.js";
import { auditHeadPath, serialiseAuditHead, type AuditHead } from "./head.js";
import type { AuditHeadView } from "./head-view.js";

/**
 * Replaces the head of `logFile` with `next` unless the current head (as
 * `view` finds it) already anchors at least `next.bytes`. Returns the bytes it
 * put in place, if it did.
 */
export async function advanceAuditHead(logFile: string, next: AuditHead, timing: LockTiming, view: AuditHeadView): Promise<Uint8Array | undefined> {
  const headFile = view.headFile;
  const temp = stagingPath(headFile);
  const bytes = serialiseAuditHead(next);
  let staged = false;
  try {
    await stage(temp, bytes);
    staged = true;
    return await withSyncLockFile(logFile, timing, () => {
      const placed = putInPlace(temp, bytes, next, view);
      staged = !placed;
      return placed ? bytes : undefined;
    });
  } finally {
    if (staged) removeQuietly(temp);
  }
}

/**
 * How long a process that is exiting waits, synchronously, for the audit
 * lock another writer holds (for microseconds, unless it is descheduled)
 * before it gives up what it still had to write.
 */
export const AUDIT_EXIT_LOCK_WAIT_MS = 25;

/**
 * advanceAuditHead for a process that is exiting: synchronous, and only if
 * the lock is free within `lockWaitMs` (otherwise the head stays behind,
 * anchoring a prefix of the log, which readers accept). Throws nothing.
 */
export function advanceAuditHeadNow(next: AuditHead, view: AuditHeadView, lockWaitMs: number = AUDIT_EXIT_LOCK_WAIT_MS): void {
  const temp = stagingPath(view.headFile);
  let staged = false;
  try {
    const fd = openSync(temp, exclusiveCreateFlags(process.platform), 0o600);
    staged = true;
    try {
      writeAll(fd, serialiseAuditHead(next));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const locked = withLockFileWithin(view.logFile, lockWaitMs, () => putInPlace(temp, serialiseAuditHead(next), next, view));
    staged = !(locked.held && locked.value);
  } catch {
    // Best-effort at exit, like every audit write: the head anchors a prefix.
  } finally {
    if (staged) removeQuietly(temp);
  }
}

/** Under the lock: renames the staged head into place unless the current head anchors as far. Returns whether it did. */
function putInPlace(temp: string, bytes: Uint8Array, next: AuditHead, view: AuditHeadView): boolean {
  view.text();
  const current = view.reading();
  if (current.state === "present" && current.head.bytes >= next.bytes) return false;
  renameSync(temp, view.headFile);
  view.placed(bytes);
  return true;
}

/**
 * Puts the first head of a new log in place, synchronously: for the caller
 * that holds the log's lock and has just fsynced the log's first lines. Until
 * a log has a head, another writer would take it for a log whose head was
 * deleted, so the first head is placed before the lock is released.
 */
export function placeFirstAuditHeadSync(logFile: string, head: AuditHead): Uint8Array {
  const headFile = auditHeadPath(logFile);
  const temp = stagingPath(headFile);
  const bytes = serialiseAuditHead(head);
  const fd = openSync(temp, exclusiveCreateFlags(process.platform), 0o600);
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, headFile);
  } catch (error) {
    closeQuietly(fd);
    removeQuietly(temp);
    throw error;
  }
  return bytes;
}

/**
 * A fresh temp name beside the head (created exclusively, so a clash fails
 * instead of clobbering). `randomUUID` draws from a pre-filled entropy buffer:
 * `randomBytes` costs a DRBG reseed and page faults after every fork, that is
 * after every spawn of the server (about 0.3 ms of CPU per call measured).
 */
function stagingPath(headFile: string): string {
  return path.join(path.dirname(headFile), `${tempFilePrefix(headFile)}${process.pid}-${randomUUID()}`);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    const written = writeSync(fd, bytes, offset, bytes.length - offset);
    if (written <= 0) throw new Error(`short write (${offset} of ${bytes.length} bytes)`);
    offset += written;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed after a successful write.
  }
}

/** Creates `temp` exclusively (0600, never through a link), writes `bytes`, fsyncs, closes; removes it on failure. */
async function stage(temp: string, bytes: Uint8Array): Promise<void> {
  const fd = openSync(temp, exclusiveCreateFlags(process.platform), 0o600);
  try {
    writeAll(fd, bytes);
    await syncDescriptor(fd);
  } catch (error) {
    closeSync(fd);
    removeQuietly(temp);
    throw error;
  }
  closeSync(fd);
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone, or the directory went away: nothing left to clean.
  }
}
