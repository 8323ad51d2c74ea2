/**
 * A search trust that records, into an Observations (unchanged-verdicts.ts), every
 * path a computation asks it about or reads: what a verdict was judged by, so that
 * the next call is answered with the same verdict while every one of those paths is
 * as it was. `rememberedJudgement` is that rule, once, for both memos that follow it:
 * the version pins of a call (version-pin.ts) and the file a command resolves to
 * (pipeline/remembered-executable.ts).
 *
 * Why a wrapper: the pins reach the filesystem through the trust (real paths,
 * the trust rule's inspections, which `agentReach` asks) and through their own
 * reads (stat-once.ts, listings, heads, global files, hooks). The trust's
 * answers are recorded by the paths they judged (every component from `/` down,
 * links followed); the reads call `reliesOn` before reading, so a change after
 * the record shows in the next call's lstat.
 */
import { Observations, type UnchangedVerdicts } from "./unchanged-verdicts.js";
import type { SearchTrust } from "../runtime/search-path.js";

const observers = new WeakMap<SearchTrust, Observations>();

/**
 * The verdict remembered in `memo` under `key` (every input but the filesystem and the trust) while every path it
 * was judged by is unchanged; else `judge`'s, run through `trust` recording every path it asks about, and remembered.
 * The trust's own inputs (its temporary directories, the operator's trusted directories) are added to the key here,
 * once for every memo: a verdict judged under another list must never answer. `judge` records what it reads or
 * probes besides (`reliesOn`) before each look. What `judge` throws is thrown, and nothing is remembered.
 */
export function rememberedJudgement<T>(memo: UnchangedVerdicts<T>, key: string, trust: SearchTrust, judge: (trust: SearchTrust) => T): T {
  const fullKey = JSON.stringify([key, trust.sharedTemporary, trust.trustedDirectories]);
  // The lstats of this check are shared with the other verdicts checked with the same trust (one computation).
  const kept = memo.verdictOf(fullKey, trust);
  if (kept !== undefined) return kept;
  const observed = new Observations();
  observeTrustInputs(observed, trust);
  const verdict = judge(observingTrust(trust, observed));
  memo.remember(fullKey, observed, verdict);
  return verdict;
}

/** `trust`, recording into `observed` every path it is asked about (a real path, an inspection). */
function observingTrust(trust: SearchTrust, observed: Observations): SearchTrust {
  const recording: SearchTrust = {
    realPath: (target) => {
      observed.record(target, false);
      return trust.realPath(target);
    },
    inspect: (target, kind) => {
      observed.record(target, false);
      return trust.inspect(target, kind);
    },
    sharedTemporary: trust.sharedTemporary,
    trustedDirectories: trust.trustedDirectories,
  };
  observers.set(recording, observed);
  return recording;
}

/**
 * Records that the computation behind `trust` relies on `file`: on what it holds or lists when `content`,
 * on its kind, owner and mode otherwise. Nothing when the computation is not observed. Call it before the read.
 */
export function reliesOn(trust: SearchTrust, file: string, content: boolean): void {
  observers.get(trust)?.record(file, content);
}

/**
 * Records that a read the computation behind `trust` relies on failed for a reason the lstats do not show (anything
 * but nothing there): its verdict is used for this call only. Nothing when the computation is not observed.
 */
export function readFailed(trust: SearchTrust): void {
  observers.get(trust)?.readFailed();
}

/** The account databases: a group-writable place passes the trust rule by the user's private group they name. */
const ACCOUNT_DATABASES = ["/etc/passwd", "/etc/group"];

/**
 * Records what the trust rule judges by besides the paths it is asked about: the operator's trusted directories
 * and the shared temporary ones (by their real paths), and the account databases (by their content).
 */
function observeTrustInputs(observed: Observations, trust: SearchTrust): void {
  for (const place of [...trust.trustedDirectories, ...trust.sharedTemporary]) observed.record(place, false);
  for (const database of ACCOUNT_DATABASES) observed.record(database, true);
}
