/**
 * The vocabulary of one provider call as the agent sees it: the decision, the
 * execution, and the structured result both `content` and `structuredContent`
 * carry. Field names are snake_case because they are the wire format.
 */
import type { GrantSuggestions } from "../policy/grant-suggestion.js";

/**
 * Why a call was allowed or denied. The policy layer's sources plus the ones
 * only the server can give (Torii's vocabulary where it has one).
 */
export type CallDecisionSource =
  | "rules"
  | "grant"
  | "human-once"
  | "human-grant"
  | "human-deny"
  | "explicit-deny"
  | "forbidden-arg"
  | "locked-option"
  | "locked-command"
  | "forbidden-value"
  | "argv-rejected"
  | "policy-error"
  | "headless"
  | "approval-timeout"
  | "approval-withdrawn"
  | "target-inactive"
  | "target-access-lost"
  | "session-invalid"
  | "identity-mismatch";

export interface CallDecision {
  readonly result: "allow" | "deny";
  readonly source: CallDecisionSource;
  /** The deciding rule's text, when a rule decided. */
  readonly rule?: string;
  readonly reason: string;
  /** For a call no rule decided: the narrowest grants that would allow it. */
  readonly grants?: GrantSuggestions;
}

export interface CallExecution {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly truncated: boolean;
  readonly timed_out: boolean;
  readonly canceled: boolean;
  readonly duration_ms: number;
}

export interface CallOutcome {
  readonly provider: string;
  readonly target?: string;
  readonly decision: CallDecision;
  readonly execution?: CallExecution;
  /** An operational failure after an allow (the program could not start, the .env is invalid…). */
  readonly error?: string;
}
