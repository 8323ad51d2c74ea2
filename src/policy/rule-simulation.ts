/**
 * What a rule change would do, before it is written: which recent calls would
 * be decided differently, and whether a proposed rule would take effect at all.
 *
 * Recent calls come from the audit log, which deliberately keeps only a call's
 * head: at most two leading canonical positionals, never an option or a value
 * (audit/argv-head.ts). So a call is simulated on its head alone and reported
 * as "calls starting with <head>". The head's decision is the decision of every
 * such call only when no changed rule looks past the head; when one does (a
 * literal rule with more positionals than the head, or with options, or any
 * regex rule) the outcome is marked `certain: false`: calls starting with the
 * head may be decided either way. The simulation never claims more than the
 * log can say, and never needs the log to say more.
 *
 * Pure: compiled policies and heads in, outcomes out.
 */
import type { CompiledPolicy, CompiledRule } from "./compile.js";
import { decideCanonical, evaluatePolicy } from "./evaluate.js";
import type { PolicyDecision, RuleList, RuleRef } from "./types.js";

/** A recent call as the simulation needs it: its leading canonical positionals. */
export interface CallHead {
  readonly head: readonly string[];
}

/** How a change moves the decision for calls starting with one head. */
export type DecisionChange = "newly-allowed" | "newly-denied" | "no-longer-allowed" | "no-longer-denied" | "unchanged";

/** The simulation's verdict for one distinct head. */
export interface HeadOutcome<C extends CallHead> {
  readonly head: readonly string[];
  /** The recent calls that started with this head (in the order given). */
  readonly calls: readonly C[];
  readonly before: PolicyDecision;
  readonly after: PolicyDecision;
  readonly change: DecisionChange;
  /**
   * True when every call starting with `head` is decided as `head` alone is;
   * false when a changed rule also depends on tokens the log does not keep.
   */
  readonly certain: boolean;
}

/** The rules a change adds and removes, by list, layer and text. */
export interface RuleDiff {
  readonly added: readonly RuleRef[];
  readonly removed: readonly RuleRef[];
}

/** The rules in force after the change that were not before, and those gone. */
export function diffRules(before: CompiledPolicy, after: CompiledPolicy): RuleDiff {
  const keyOf = (ref: RuleRef): string => `${ref.list}\0${ref.layer}\0${ref.text}`;
  const refs = (policy: CompiledPolicy): RuleRef[] => [...policy.deny.all, ...policy.accept.all].map((rule) => rule.ref);
  const beforeKeys = new Set(refs(before).map(keyOf));
  const afterKeys = new Set(refs(after).map(keyOf));
  return {
    added: refs(after).filter((ref) => !beforeKeys.has(keyOf(ref))),
    removed: refs(before).filter((ref) => !afterKeys.has(keyOf(ref))),
  };
}

/**
 * Decides every distinct head of `calls` under `before` and `after`. Outcomes
 * come in the order their heads first appear.
 */
export function simulatePolicyChange<C extends CallHead>(before: CompiledPolicy, after: CompiledPolicy, calls: readonly C[]): HeadOutcome<C>[] {
  const changed = changedRules(before, after);
  const groups = new Map<string, { head: readonly string[]; calls: C[] }>();
  for (const call of calls) {
    const key = call.head.join("\0");
    const group = groups.get(key) ?? { head: call.head, calls: [] };
    group.calls.push(call);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ head, calls: grouped }) => {
    const argv = { positionals: head, options: [], hasTail: false, tail: [] };
    const beforeDecision = decideCanonical(before, argv);
    const afterDecision = decideCanonical(after, argv);
    return {
      head,
      calls: grouped,
      before: beforeDecision,
      after: afterDecision,
      change: changeOf(beforeDecision, afterDecision),
      certain: !changed.some((rule) => looksPastHead(rule, head)),
    };
  });
}

function changedRules(before: CompiledPolicy, after: CompiledPolicy): CompiledRule[] {
  const diff = diffRules(before, after);
  const refs = new Set([...diff.added, ...diff.removed]);
  return [...before.deny.all, ...before.accept.all, ...after.deny.all, ...after.accept.all].filter((rule) => refs.has(rule.ref));
}

/** Whether `rule` may match some calls starting with `head` and not others. */
function looksPastHead(rule: CompiledRule, head: readonly string[]): boolean {
  if (rule.kind === "regex") return true;
  const { positionals, options, hasTail } = rule.canonical;
  const shared = Math.min(positionals.length, head.length);
  for (let index = 0; index < shared; index += 1) if (positionals[index] !== head[index]) return false;
  return positionals.length > head.length || options.length > 0 || hasTail;
}

function changeOf(before: PolicyDecision, after: PolicyDecision): DecisionChange {
  if (before.result === after.result) return "unchanged";
  if (after.result === "accept") return "newly-allowed";
  if (after.result === "deny") return "newly-denied";
  return before.result === "accept" ? "no-longer-allowed" : "no-longer-denied";
}

/** Whether a rule would decide a call the way its list intends. */
export type RuleEffect =
  { readonly effective: true; readonly decision: PolicyDecision } | { readonly effective: false; readonly reason: string; readonly decision: PolicyDecision };

/**
 * Whether, with the new rule in `after`, the call `argv` (the agent's argv or
 * its canonical tokens) would be decided as `list` intends: accepted for an
 * accept rule, denied by a rule for a deny rule. Not, with the reason, when a
 * deny rule or the floor (a locked option, a forbidden argument, a refused
 * spelling) wins, when the rule does not compile, when an accept rule is
 * shorter than `minimum_accept_tokens`, or when the rule does not match the call.
 */
export function ruleTakesEffect(after: CompiledPolicy, list: RuleList, rule: string, argv: readonly string[]): RuleEffect {
  const { decision } = evaluatePolicy(after, argv);
  const broken = after.errors.find((error) => error.ref.text === rule && error.ref.list === list);
  if (broken !== undefined) return { effective: false, decision, reason: `the rule does not compile: ${broken.message}` };
  if (list === "accept") {
    if (decision.result === "accept") return { effective: true, decision };
    if (decision.result === "deny") return { effective: false, decision, reason: `it would still be denied: ${decision.reason}` };
    if (after.ignoredAccept.some((ref) => ref.text === rule)) {
      return {
        effective: false,
        decision,
        reason: `an accept rule needs at least ${after.context.settings.minimumAcceptTokens} token(s) (minimum_accept_tokens)`,
      };
    }
    return { effective: false, decision, reason: "the rule does not match this call" };
  }
  if (decision.result === "deny" && decision.source === "explicit-deny") return { effective: true, decision };
  if (decision.result === "deny") return { effective: false, decision, reason: `the call is already refused before any rule: ${decision.reason}` };
  return { effective: false, decision, reason: "the rule does not match this call" };
}
