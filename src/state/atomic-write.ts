/**
 * Replaces a file so that a reader, or the file after a crash, holds either
 * the old content or the new content, never a mix:
 *
 * 1. create `.<file>.tmp-<pid>-<random>` in the same directory, exclusively
 *    (`O_CREAT|O_EXCL`, and `O_NOFOLLOW` on POSIX), mode 0600;
 * 2. write all bytes; 3. fsync; 4. close;
 * 5. rename it over the target (on Windows, retried a bounded number of times
 *    on EPERM/EACCES/EBUSY, which antivirus and indexers cause);
 * 6. on POSIX, open the directory and fsync it, so the rename itself is durable.
 *
 * A failure before the rename removes the temp file and rethrows the original
 * error (never masked by a cleanup error); the target is untouched. A failure
 * of the directory fsync comes after the rename: the new content is in place
 * but may not survive a power cut, and the error is still thrown. fsync errors
 * are never retried (after a failed fsync, a retry can report success with the
 * data lost).
 *
 * The file-system calls go through `AtomicFs` so tests can fail each step in turn.
 */
import { constants } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import path from "node:path";

/** An open file as the writer uses it. */
export interface WritableFile {
  /** Writes from `data[offset..]` at the current position; returns how many bytes were written. */
  write(data: Uint8Array, offset: number): Promise<number>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file-system calls the atomic writer makes, in the order it makes them. */
export interface AtomicFs {
  open(file: string, flags: number, mode: number): Promise<WritableFile>;
  rename(from: string, to: string): Promise<void>;
  /** Opens a directory for fsync (POSIX only). */
  openDirectory(dir: string): Promise<WritableFile>;
  unlink(file: string): Promise<void>;
}

/** The real file system. */
export const nodeAtomicFs: AtomicFs = {
  async open(file, flags, mode) {
    return wrapHandle(await open(file, flags, mode));
  },
  rename: (from, to) => rename(from, to),
  async openDirectory(dir) {
    return wrapHandle(await open(dir, constants.O_RDONLY | constants.O_DIRECTORY));
  },
  unlink: (file) => unlink(file),
};

function wrapHandle(handle: Awaited<ReturnType<typeof open>>): WritableFile {
  return {
    write: async (data, offset) => (await handle.write(data, offset, data.length - offset, null)).bytesWritten,
    sync: () => handle.sync(),
    close: () => handle.close(),
  };
}

export interface AtomicWriteOptions {
  readonly fs?: AtomicFs;
  /** Decides the Windows rename retry and the directory fsync; `process.platform` by default. */
  readonly platform?: NodeJS.Platform;
  /**
   * Called after the temp file is complete and just before the rename; throwing
   * aborts the write (the temp file is removed, the target untouched). The state
   * stores use it to check that their lock is still theirs.
   */
  readonly beforeCommit?: () => void;
  /** Called right after the rename: from here on the new content is in place, whatever fails after. */
  readonly afterCommit?: () => void;
  /**
   * Whether the directory is fsynced after the rename (default true). Only a
   * file whose previous content is still acceptable after a crash may skip it
   * (the audit head: an older head anchors a prefix of the log).
   */
  readonly syncDirectory?: boolean;
  /** The pause between two Windows rename attempts (a real timer by default); tests record the pauses asked for. */
  readonly pause?: (ms: number) => Promise<void>;
}

/** The prefix every temp file of `file` starts with (`.<name>.tmp-`); such files are never read as state. */
export function tempFilePrefix(file: string): string {
  return `.${path.basename(file)}.tmp-`;
}

/** Flags for a new file that must not exist yet and must not be reached through a symlink. */
export function exclusiveCreateFlags(platform: NodeJS.Platform): number {
  return constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | (platform === "win32" ? 0 : constants.O_NOFOLLOW);
}

/** Windows rename retry: waits between attempts (ms); about 0.6 s in all. */
const RENAME_RETRY_DELAYS = [5, 10, 20, 40, 80, 100, 100, 100, 100] as const;
const RENAME_RETRY_CODES = new Set(["EPERM", "EACCES", "EBUSY"]);

/** Atomically replaces `file` with `data` (see the module comment for the steps and guarantees). */
export async function writeFileAtomic(file: string, data: Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const fs = options.fs ?? nodeAtomicFs;
  const platform = options.platform ?? process.platform;
  const dir = path.dirname(file);
  const temp = path.join(dir, `${tempFilePrefix(file)}${process.pid}-${randomBytes(6).toString("hex")}`);

  const handle = await fs.open(temp, exclusiveCreateFlags(platform), 0o600);
  let closed = false;
  try {
    await writeAll(handle, data);
    await handle.sync();
    closed = true;
    await handle.close();
    options.beforeCommit?.();
    await renameWithRetry(fs, temp, file, platform, options.pause ?? pauseFor);
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  options.afterCommit?.();
  if (platform !== "win32" && options.syncDirectory !== false) await syncDirectory(fs, dir);
}

async function writeAll(handle: WritableFile, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const written = await handle.write(data, offset);
    if (written <= 0) throw new Error(`short write (${offset} of ${data.length} bytes)`);
    offset += written;
  }
}

function pauseFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function renameWithRetry(fs: AtomicFs, from: string, to: string, platform: NodeJS.Platform, pause: (ms: number) => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await fs.rename(from, to);
      return;
    } catch (error) {
      const delay = RENAME_RETRY_DELAYS[attempt];
      const code = (error as NodeJS.ErrnoException).code ?? "";
      if (platform !== "win32" || delay === undefined || !RENAME_RETRY_CODES.has(code)) throw error;
      await pause(delay);
    }
  }
}

async function syncDirectory(fs: AtomicFs, dir: string): Promise<void> {
  const handle = await fs.openDirectory(dir);
  try {
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close();
}
