/**
 * What the readers of the audit log check before they trust what they read:
 * the log and its head must be regular files at their own paths. The writer
 * opens the log with O_NOFOLLOW, so through a symbolic link every append fails
 * (ELOOP) while a reader that follows the link would still report an intact
 * chain, and a dangling link would look like "no log yet".
 */
import { closeSync, constants, fstatSync, lstatSync, openSync } from "node:fs";
import path from "node:path";
import { auditHeadPath } from "./head.js";
import type { AuditProblem } from "./verify.js";

/** What a path is, as lstat sees it (a link is not followed). */
function kindOf(file: string): "missing" | "regular" | "symlink" | "other" {
  try {
    const stats = lstatSync(file);
    return stats.isSymbolicLink() ? "symlink" : stats.isFile() ? "regular" : "other";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    throw error;
  }
}

/**
 * The log and head paths that exist but are not regular files (a symbolic
 * link, dangling or not, a directory, a FIFO…), as whole-log problems; an
 * empty list when both are regular files or absent.
 *
 * @throws the file-system error when a path cannot be examined (other than missing).
 */
export function auditFileProblems(logFile: string): AuditProblem[] {
  return [logFile, auditHeadPath(logFile)].flatMap((file): AuditProblem[] => {
    const kind = kindOf(file);
    if (kind === "missing" || kind === "regular") return [];
    const what = kind === "symlink" ? "a symbolic link (replace it with the file it points to)" : "not a regular file (move it aside)";
    const effect = file === logFile ? "the server cannot append to it (it never follows a link), so calls go unaudited" : "it does not anchor the log";
    return [{ reason: `${path.basename(file)} is ${what}; ${effect}`, warning: false }];
  });
}

/** True when the log path exists in any form, a dangling symbolic link included. */
export function auditLogPresent(logFile: string): boolean {
  return kindOf(logFile) !== "missing";
}

const READ_FLAGS = constants.O_RDONLY | (process.platform === "win32" ? 0 : constants.O_NOFOLLOW | constants.O_NONBLOCK);

/**
 * Opens the log for reading as the readers must: never through a symbolic
 * link (ELOOP), never blocking on a FIFO or a device (the server reads the
 * log's end for the approval page's recent calls), and only a regular file.
 * Returns the descriptor and the file's size; the caller closes it.
 *
 * @throws ENOENT when there is no log, ELOOP for a link, an error for anything but a regular file.
 */
export function openAuditLogForReading(file: string): { readonly fd: number; readonly size: number } {
  const fd = openSync(file, READ_FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new Error(`${path.basename(file)} is not a regular file`);
    return { fd, size: stats.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
