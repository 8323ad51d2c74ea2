/**
 * The events an audit record can name: Torii's (reference torii.md §3.9), kept
 * verbatim so logs read the same, plus the TypeScript broker's own refusals.
 */

/** Torii's decision, grant, policy-write, auth, lease and execution events. */
export const TORII_AUDIT_EVENTS = [
  // decisions
  "invoke",
  "allowed-by-rules",
  "allowed-by-grant",
  "denied-explicit",
  "denied-forbidden-arg",
  "denied-interface",
  "override-once",
  "override-timed",
  "invalid-accept",
  "invalid-rule",
  // grants
  "legacy-grants-ignored",
  "invalid-grants-ignored",
  // policy writes
  "policy-accept-added",
  "policy-deny-added",
  "policy-write-failed",
  // auth
  "preflight-provider",
  "preflight-ok",
  "preflight-failed",
  "session-ok",
  "session-unchecked",
  "session-invalid",
  "session-refreshed",
  "session-candidate-invalid",
  "reauth-forced",
  "identity-ok",
  "identity-mismatch",
  "identity-check-failed",
  // target leases
  "target-access-requested",
  "target-access-denied",
  "target-access-replaced",
  "target-access-added",
  "target-access-stale",
  "target-access-lost",
  "target-access-revoked",
  "target-access-cleared",
  // execution
  "ran",
] as const;

/** Refusals and failures that Torii does not log under a name of its own. */
export const BROKER_AUDIT_EVENTS = [
  /** The agent spelled an option the broker owns (`--profile`, `-n`, `--cont`, …). */
  "denied-locked-option",
  /** The agent called a command that rewrites what the target means (`kubectl config set`, `aws configure`). */
  "denied-locked-command",
  /** The argv does not parse under the CLI's grammar, or uses a refused spelling. */
  "denied-argv",
  /** A rules file is missing, malformed or has a bad regex: fail closed. */
  "denied-policy-error",
  /** A human answer was needed but no approval channel exists (headless). */
  "denied-headless",
  /** The operator answered Deny (or Always deny) on the approval page or with `torii approvals deny`. */
  "human-deny",
  /** Nobody answered the pending approval within approval.timeout_seconds. */
  "approval-timeout",
  /** The agent cancelled the call while its approval was pending; the approval was withdrawn. */
  "approval-withdrawn",
  /** The target has no valid lease and none could be asked for. */
  "denied-target-inactive",
  /** The program could not be started (not found, refused batch wrapper, spawn error). */
  "launch-failed",
  /**
   * An allowed call's credentials could not be made ready (a refused or unreadable `.env`, a lifecycle that could
   * not run, the agent's cancel): the call ends without running; detail `canceled` or `error`, never the message.
   */
  "auth-failed",
  // Operator CLI changes (torii target … / torii grant …); Torii logs no record for them.
  /** `torii target add` wrote a new target.yaml. */
  "target-added",
  /** `torii target remove` deleted a target's directory (after revoking its lease). */
  "target-removed",
  /** `torii grant add` stored a grant; detail carries its evidence and minutes. */
  "grant-added",
  /** `torii grant revoke` removed the grant with this evidence. */
  "grant-revoked",
  /** `torii grant clear` removed every grant of a provider or target. */
  "grants-cleared",
  /** `torii auth logout` deleted a scope's stored credentials (environment strategy). */
  "session-removed",
  /**
   * The server gave up on its client: stdout stayed full, taking nothing, for STDOUT_STALL_MS (the client stopped
   * reading or went away); the calls in flight were aborted and their processes killed. Scope `server`.
   */
  "client-stalled",
  // The log's own anchor (head.ts, anchor.ts); scope `audit`.
  /** A writer found no audit.head beside a log with lines in it, and anchored the log from here. */
  "audit-anchored",
  /** A writer found audit.head unreadable or not matching the log (cut off, edited) before it appended. */
  "audit-head-mismatch",
] as const;

export const AUDIT_EVENTS: readonly AuditEvent[] = [...TORII_AUDIT_EVENTS, ...BROKER_AUDIT_EVENTS];

/** Every event an audit record may carry. */
export type AuditEvent = (typeof TORII_AUDIT_EVENTS)[number] | (typeof BROKER_AUDIT_EVENTS)[number];

/** The shape of any event name, for records written by a newer Torii. */
export const AUDIT_EVENT_SHAPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
