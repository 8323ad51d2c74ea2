/**
 * The one owner-and-mode rule for everything Torii trusts on disk: the
 * configuration tree (settings, providers, targets, rules, `.env`) and the
 * lease and grant state files kept in it. Whoever can write one of those files,
 * or a directory above it, decides what the agent may run and what reaches the
 * child (a `.env` setting `LD_PRELOAD`), so such a file is refused, never
 * skipped. Every problem comes with the command that fixes it.
 *
 * POSIX: the path must belong to this user or to root, and must not be
 * writable by group or others. A directory above the configuration root may be
 * writable by others when it is sticky (`/tmp`): others can add entries there
 * but cannot rename or replace ours. Windows has no POSIX owner or mode bits;
 * the owner and mode checks are skipped there (see docs/configuration.md).
 */
import type { Stats } from "node:fs";
import { shellQuote } from "../policy/shell-quote.js";

/** Who trusted paths must belong to, and whether POSIX owner and mode checks apply. */
export interface TrustPolicy {
  readonly platform: NodeJS.Platform;
  /** This process's uid; undefined skips the owner and mode checks (Windows). */
  readonly uid: number | undefined;
  /**
   * Real paths of directories in and below which a group-writable directory or
   * file is accepted (never an other-writable one): the operator's
   * `path.trusted_directories`, for the PATH search only (config/search-trust.ts).
   * The configuration's own trust never has any.
   */
  readonly groupWriteAccepted?: readonly string[];
  /**
   * The gid of the user's private group (private-group.ts), whose group write
   * is the user's own: for the PATH search and the launch check only, as
   * `groupWriteAccepted`. Asked only when a group-writable file or directory is
   * met: the account databases are then read, not on every call's trust walk.
   */
  readonly privateGroup?: () => number | undefined;
}

/** The policy of this process on `platform`. */
export function currentTrustPolicy(platform: NodeJS.Platform = process.platform): TrustPolicy {
  return { platform, uid: platform === "win32" ? undefined : process.getuid?.() };
}

/** How strictly a directory's write bits are read. */
export type WriteRule = "strict" | "sticky-ok";

/** What is wrong with a path, and the command that fixes it. */
export interface TrustProblem {
  readonly detail: string;
  readonly fix: string;
}

const ROOT_UID = 0;
const GROUP_OR_OTHER_WRITE = 0o022;
const OTHER_WRITE = 0o002;
const STICKY = 0o1000;

/**
 * Checks the owner and mode of `subject` (as `lstat`/`fstat` saw it).
 * `sticky-ok` accepts a group- or other-writable directory with the sticky bit.
 *
 * @returns the problem, or undefined when the path may be trusted.
 */
export function ownerAndModeProblem(
  subject: string,
  stats: Pick<Stats, "uid" | "mode"> & { readonly gid?: number },
  policy: TrustPolicy,
  rule: WriteRule = "strict",
): TrustProblem | undefined {
  if (policy.uid === undefined) return undefined;
  const owner = ownerProblem(subject, stats.uid, policy);
  if (owner !== undefined) return owner;
  const writable = (stats.mode & GROUP_OR_OTHER_WRITE) !== 0;
  if (!writable || (rule === "sticky-ok" && (stats.mode & STICKY) !== 0)) return undefined;
  if ((stats.mode & OTHER_WRITE) === 0 && (groupWriteAccepted(subject, policy) || (policy.privateGroup !== undefined && stats.gid === policy.privateGroup()))) {
    return undefined;
  }
  return {
    detail: `is writable by group or others (mode ${(stats.mode & 0o7777).toString(8)})`,
    fix: `chmod go-w ${shellQuote(subject)}`,
  };
}

/**
 * Checks only the owner of `subject`; `link` for a symbolic link, whose mode
 * bits mean nothing on Linux but whose owner may replace it (in a sticky
 * directory, or one it may write) with a link to anywhere.
 *
 * @returns the problem, or undefined when the owner is this user or root (or the platform has no owners).
 */
export function ownerProblem(subject: string, uid: number, policy: TrustPolicy, link = false): TrustProblem | undefined {
  if (policy.uid === undefined || uid === policy.uid || uid === ROOT_UID) return undefined;
  return {
    detail: `${link ? "is a symbolic link that " : ""}belongs to uid ${uid}, not to this user (uid ${policy.uid}) or root`,
    // `-h`: the link itself, not the file it points at.
    fix: `chown ${link ? "-h " : ""}${policy.uid} ${shellQuote(subject)}`,
  };
}

/** Whether `subject` (a real POSIX path) is one of the operator's group-writable directories or below one. */
function groupWriteAccepted(subject: string, policy: TrustPolicy): boolean {
  return (policy.groupWriteAccepted ?? []).some(
    (directory) => subject === directory || subject.startsWith(directory.endsWith("/") ? directory : `${directory}/`),
  );
}

/** `problem` as one line: what is wrong, then `fix: <command>`. */
export function describeTrustProblem(problem: TrustProblem): string {
  return `${problem.detail}; fix: ${problem.fix}`;
}
