/**
 * The audit log's descriptor, kept open from one append to the next.
 *
 * Opening and closing the log for every append cost two system calls and,
 * in a server that forks a program between appends, page faults on every
 * buffer the open touched. The descriptor is reused only while the path
 * still names the file it is open on: under the lock, an `lstat` of the
 * path (which also gives the size the append needs) is compared with the
 * descriptor's device and inode. A log moved away (rotation), deleted,
 * replaced by another file or by a symlink is seen there, and the path is
 * opened again exactly as a first append opens it: never through a symlink,
 * created exclusively (0600) when missing. While the descriptor is open its
 * inode cannot be reused, so an equal inode number is the same file.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";

const OPEN_FLAGS = constants.O_RDWR | constants.O_APPEND | (process.platform === "win32" ? 0 : constants.O_NOFOLLOW);

/** An open log: its descriptor and the file's stats as found before the append. */
export interface OpenLog {
  readonly fd: number;
  readonly stats: Stats;
}

export class AuditLogHandle {
  private fd = -1;
  private dev = -1;
  private ino = -1;

  constructor(readonly file: string) {}

  /**
   * For the lock holder: a descriptor open on the file the path names now,
   * with its stats. Throws when the path cannot be opened as a regular file
   * (a symlink, a directory, no permission).
   */
  open(): OpenLog {
    const found = lstatSync(this.file, { throwIfNoEntry: false });
    if (found !== undefined && this.fd !== -1 && found.isFile() && found.dev === this.dev && found.ino === this.ino) {
      return { fd: this.fd, stats: found };
    }
    this.close();
    const fd = openAuditFile(this.file, found === undefined);
    let stats: Stats;
    try {
      stats = fstatSync(fd);
      if (!stats.isFile()) throw new Error("is not a regular file");
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
    this.dev = stats.dev;
    this.ino = stats.ino;
    return { fd, stats };
  }

  /** The descriptor, if it is still open on the file `ino` (for an fsync of bytes written to it earlier). */
  descriptorOf(ino: number): number | undefined {
    return this.fd !== -1 && this.ino === ino ? this.fd : undefined;
  }

  /** Closes the descriptor (after a failure, or when the path names another file); the next `open` opens the path again. */
  close(): void {
    if (this.fd === -1) return;
    const fd = this.fd;
    this.fd = -1;
    try {
      closeSync(fd);
    } catch {
      // A descriptor that cannot be closed is forgotten all the same.
    }
  }
}

/**
 * Opens the log for reading and appending, never through a symlink; creates it
 * (0600) exclusively when missing. The existing file is tried first unless
 * the caller has just seen the path missing: a failed open costs a thrown
 * system error (a stack trace).
 */
function openAuditFile(file: string, missing: boolean): number {
  if (!missing) {
    try {
      return openSync(file, OPEN_FLAGS);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  try {
    return openSync(file, OPEN_FLAGS | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    // Created meanwhile by a writer that does not take the lock: open what is there.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  return openSync(file, OPEN_FLAGS);
}
