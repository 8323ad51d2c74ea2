/**
 * `<root>/torii-server.log`: where the server leaves what it could only say on
 * stderr (a start-up failure), for the operator whose MCP client hides stderr.
 *
 * The root may be the very thing that failed the trust check (world-writable),
 * so the file is opened without following a link, created 0600, and written
 * only when it is a regular file of this user with a single link: a planted
 * link or someone else's file is left alone. The size is bounded: past
 * MAX_LOG_BYTES the file is renamed to `torii-server.log.1` (replacing the
 * previous one) and a new one is started.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, renameSync, writeSync } from "node:fs";
import path from "node:path";

/** The log file's name under the configuration root. */
export const SERVER_LOG_NAME = "torii-server.log";

/** Above this size the log is rotated (one previous generation is kept). */
export const MAX_LOG_BYTES = 256 * 1024;

// Windows has no O_NOFOLLOW (Node leaves it undefined there); links below the root are rarer there and need privilege.
const NO_FOLLOW = (constants as Partial<typeof constants>).O_NOFOLLOW ?? 0;
// A named pipe at the log's path would block the open until a reader came (a start-up error path, where the root may be
// the untrusted thing): without blocking, it opens at once or fails (ENXIO), and the fstat below refuses it either way.
const NON_BLOCK = (constants as Partial<typeof constants>).O_NONBLOCK ?? 0;

/** `<root>/torii-server.log`. */
export function serverLogPath(root: string): string {
  return path.join(root, SERVER_LOG_NAME);
}

/**
 * Appends one timestamped entry to the server log under `root`.
 *
 * @returns undefined when written, or why it was not (the caller says so on stderr; it never throws).
 */
export function appendServerLog(root: string, entry: string, now: Date = new Date()): string | undefined {
  const file = serverLogPath(root);
  try {
    rotateIfFull(file);
    const text = `${now.toISOString()} torii[${process.pid}] ${entry.replaceAll("\n", "\n  ")}\n`;
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW | NON_BLOCK, 0o600);
    try {
      const problem = unsafeLogProblem(fstatSync(fd));
      if (problem !== undefined) return `${file} ${problem}`;
      writeSync(fd, text);
      return undefined;
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return `${file} could not be written: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function rotateIfFull(file: string): void {
  let size: number;
  try {
    const stats = lstatSync(file);
    if (!stats.isFile()) return; // the open below refuses it (a named pipe too: it opens without blocking)
    size = stats.size;
  } catch {
    return;
  }
  // rename moves the entry itself, never what a link would point to.
  if (size >= MAX_LOG_BYTES) renameSync(file, `${file}.1`);
}

function unsafeLogProblem(stats: { isFile(): boolean; uid: number; nlink: number }): string | undefined {
  if (!stats.isFile()) return "is not a regular file; left alone";
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) return `belongs to uid ${stats.uid}, not to this user; left alone`;
  if (stats.nlink > 1) return "has more than one link; left alone";
  return undefined;
}
