/**
 * The errors of the state layer (leases, grants, their lock).
 *
 * A StateError always names the file it is about and says what kind of
 * problem it is, so the caller can fail closed and audit it, and an operator
 * can find the file: `…/providers/aws/grants: unsupported version "3"`.
 */

/**
 * What is wrong with a state file:
 * - `missing-version`, `unknown-version`: the file is not in a format this build writes;
 * - `legacy`: a Torii tab-separated grants file (one `<expiry>\t<command line>` per line);
 * - `torn`: empty, cut short, NUL bytes, bad UTF-8 or unparseable YAML (an interrupted write or a damaged disk);
 * - `invalid`: parseable, but the schema refuses it (unknown fields, wrong types, bad revision…);
 * - `duplicate`: a target, a grant matcher or a YAML key appears twice;
 * - `unsafe-path`: a symlink, a hard link, a foreign owner or a group/world-writable directory or file;
 * - `io`: the file system refused (permissions, disk full, …).
 */
export type StateErrorKind = "missing-version" | "unknown-version" | "legacy" | "torn" | "invalid" | "duplicate" | "unsafe-path" | "io";

/** A state file that cannot be trusted, or could not be read or written. It authorises nothing. */
export class StateError extends Error {
  override readonly name: string = "StateError";
  /** The state file the problem is about. */
  readonly file: string;
  readonly kind: StateErrorKind;
  /** The problem without the file prefix. */
  readonly detail: string;

  constructor(file: string, kind: StateErrorKind, detail: string, options?: { cause?: unknown }) {
    super(`${file}: ${detail}`, options);
    this.file = file;
    this.kind = kind;
    this.detail = detail;
  }
}

/**
 * A state change whose new file was renamed into place, after which a step
 * failed (the directory's fsync, or the lock found lost at release): the new
 * state is in force (and may not survive a power cut). It is no problem of
 * the file's: the operator must be told the change took effect.
 */
export class StateWrittenError extends StateError {
  override readonly name: string = "StateWrittenError";
  /** What failed after the rename, without the file prefix. */
  readonly problem: string;

  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(file, "io", `the change was written and is in force, but ${problem}`, options);
    this.problem = problem;
  }
}

/** A compare-and-swap write found the file at another revision than the caller read: re-read and decide again. */
export class StaleRevisionError extends Error {
  override readonly name = "StaleRevisionError";
  readonly file: string;
  readonly expected: number;
  readonly actual: number;

  constructor(file: string, expected: number, actual: number) {
    super(`${file}: the state changed (expected revision ${expected}, found ${actual}); read it again and retry`);
    this.file = file;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Another process held the state file's lock for longer than the bounded wait. */
export class LockTimeoutError extends Error {
  override readonly name = "LockTimeoutError";
  readonly file: string;
  readonly waitedMs: number;

  constructor(file: string, waitedMs: number) {
    super(`${file}: timed out after ${Math.round(waitedMs)} ms waiting for the lock ${file}.lock (another torii process holds it)`);
    this.file = file;
    this.waitedMs = waitedMs;
  }
}

/**
 * The lock could no longer be trusted to be ours (its directory vanished, its
 * refresh failed, or it was held so long that another process may have taken
 * it over as stale). A state write that sees this aborts before its rename.
 */
export class LockCompromisedError extends Error {
  override readonly name = "LockCompromisedError";
  readonly file: string;
  /** Why the lock is no longer trusted, without the file prefix. */
  readonly reason: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super(`${file}: the lock was lost (${reason})`, options);
    this.file = file;
    this.reason = reason;
  }
}
