/**
 * The human-owned gates of the pipeline, as interfaces: the lease for a
 * target, grants, and the human approval. The pipeline depends only on these,
 * so the stores (leases and grants on disk, the approval page) plug in without
 * changing the order of the steps.
 */
import type { ProviderEntry, TargetEntry } from "../config/registry.js";
import type { GrantSuggestions } from "../policy/grant-suggestion.js";
import type { FileWriteHold } from "../policy/file-write-hold.js";

/** Where in the pipeline a lease is checked (audit and error wording). */
export type LeaseCheckpoint = "policy" | "before-env" | "after-auth" | "at-launch";

/** Whether a lease holds, and when not, why (for the agent and the operator). */
export type LeaseStatus = { readonly active: true } | { readonly active: false; readonly reason: string };

export interface LeaseGate {
  /** Whether a human lease for this target's current binding is active now. */
  check(provider: ProviderEntry, target: TargetEntry, checkpoint: LeaseCheckpoint): Promise<LeaseStatus>;
  /**
   * Starts the process while holding the lease lock, if the lease is still
   * active: a revocation that lands before launch stops the call. `start`
   * resolves once the process has been spawned (StartLaunch: the child host
   * answered), not when it ends; the lock is held until it settles and released
   * right after, so a revocation either stops the start or finds the process running.
   */
  startWhileActive<T>(provider: ProviderEntry, target: TargetEntry, start: () => Promise<T>): Promise<{ active: true; value: T } | { active: false }>;
}

export interface GrantMatch {
  /** A short, non-secret reference to the grant (`grant:prefix:2:1a2b3c4d`). */
  readonly evidence: string;
}

export interface GrantGate {
  /**
   * A live grant covering exactly these canonical tokens, for this provider or
   * target; a prefix grant shorter than `minimumPrefix` does not count (the
   * file-write hold, policy/file-write-hold.ts).
   */
  find(provider: ProviderEntry, target: TargetEntry | undefined, canonicalTokens: readonly string[], minimumPrefix?: number): Promise<GrantMatch | undefined>;
}

export interface ApprovalRequest {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry | undefined;
  readonly canonicalTokens: readonly string[];
  /** The agent's stated reason, sanitised; shown to the human, never used to decide. */
  readonly description: string | undefined;
  /** Why policy decided nothing (the unresolved decision's reason). */
  readonly reason: string;
  /** The narrowest grants that would allow the call (policy/grant-suggestion.ts, the one source). */
  readonly grants: GrantSuggestions;
  /**
   * A file write's (or read's) hold (policy/file-write-hold.ts): a prefix grant covering fewer than its
   * `minimumPrefix` tokens would not allow the call, so no front door admits one (approval/lasting-answers.ts).
   */
  readonly hold?: FileWriteHold;
  readonly signal: AbortSignal;
}

/** A rule the operator added while answering (Always allow / Always deny), for the audit log. */
export interface AddedRule {
  readonly effect: "accept" | "deny";
  readonly rule: string;
  /** Where it was written (`<file>:<line>:<column>`), for the audit's reference to it (audit/rule-ref.ts). */
  readonly origin?: string;
}

export type ApprovalAnswer =
  | {
      readonly result: "allow";
      readonly source: "human-once" | "human-grant" | "rules";
      /** Who answered through which channel (`page`, `cli by alice`); never a secret. */
      readonly answeredBy: string;
      /** The grant written for "Allow for N minutes" (its evidence and minutes). */
      readonly grant?: string;
      readonly addedRule?: AddedRule;
    }
  | {
      readonly result: "deny";
      readonly source: "human-deny" | "headless" | "approval-timeout" | "approval-withdrawn";
      readonly reason: string;
      readonly answeredBy?: string;
      readonly addedRule?: AddedRule;
    };

/** A call to a target with no live lease, put to the operator as a lease question. */
export interface LeaseRequest {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry;
  readonly canonicalTokens: readonly string[];
  readonly description: string | undefined;
  readonly signal: AbortSignal;
}

/** The operator's answer to a lease question; an allow has already activated the lease. */
export type LeaseAnswer =
  | {
      readonly result: "allow";
      readonly mode: "replace" | "add";
      readonly minutes: number;
      /** The targets whose live leases a "replace" ended. */
      readonly replaced: readonly string[];
      readonly answeredBy: string;
    }
  | {
      readonly result: "deny";
      readonly source: "human-deny" | "approval-timeout" | "approval-withdrawn";
      readonly reason: string;
      readonly answeredBy?: string;
    };

export interface Approver {
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** Asks the operator for a lease; absent when nobody can be asked (headless: the call is denied target-inactive). */
  askLease?(request: LeaseRequest): Promise<LeaseAnswer>;
}

/** Headless: every question to a human is answered no. */
export const headlessApprover: Approver = {
  ask: () =>
    Promise.resolve({
      result: "deny",
      source: "headless",
      reason: "no rule or grant allows this call and no operator approval is available (headless), so it is denied",
    }),
};
