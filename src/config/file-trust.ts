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
const STICKY = 0o1000;

/**
 * Checks the owner and mode of `subject` (as `lstat`/`fstat` saw it).
 * `sticky-ok` accepts a group- or other-writable directory with the sticky bit.
 *
 * @returns the problem, or undefined when the path may be trusted.
 */
export function ownerAndModeProblem(
  subject: string,
  stats: Pick<Stats, "uid" | "mode">,
  policy: TrustPolicy,
  rule: WriteRule = "strict",
): TrustProblem | undefined {
  if (policy.uid === undefined) return undefined;
  if (stats.uid !== policy.uid && stats.uid !== ROOT_UID) {
    return {
      detail: `belongs to uid ${stats.uid}, not to this user (uid ${policy.uid}) or root`,
      fix: `chown ${policy.uid} ${shellQuote(subject)}`,
    };
  }
  const writable = (stats.mode & GROUP_OR_OTHER_WRITE) !== 0;
  if (!writable || (rule === "sticky-ok" && (stats.mode & STICKY) !== 0)) return undefined;
  return {
    detail: `is writable by group or others (mode ${(stats.mode & 0o7777).toString(8)})`,
    fix: `chmod go-w ${shellQuote(subject)}`,
  };
}

/** `problem` as one line: what is wrong, then `fix: <command>`. */
export function describeTrustProblem(problem: TrustProblem): string {
  return `${problem.detail}; fix: ${problem.fix}`;
}
