/**
 * The read-only policy query behind `torii_policy` and `torii policy check`:
 * the effective rules of a provider (and target), and what policy alone says
 * about an argv. It reads no environment, grants or leases; the caller passes
 * the policy it compiled (through the pipeline's PolicyCache).
 */
import type { CompiledPolicy } from "./compile.js";
import { evaluatePolicy } from "./evaluate.js";
import type { CredentialPlaces } from "./grammar/credential-places.js";
import { suggestGrants, type GrantSuggestions } from "./grant-suggestion.js";
import type { DecisionSource, RuleRef } from "./types.js";

export interface Explanation {
  readonly tool: string;
  readonly target?: string;
  readonly decision: "deny" | "accept" | "unresolved";
  readonly source: DecisionSource;
  readonly reason: string;
  readonly rule?: RuleRef;
  /** What would be spawned (after the provider's `args_prefix`, which is not shown). */
  readonly canonical_argv?: readonly string[];
  /** For an unresolved call: the narrowest grants that would allow it. */
  readonly grants?: GrantSuggestions;
}

export interface EffectivePolicy {
  readonly tool: string;
  readonly target?: string;
  readonly minimum_accept_tokens: number;
  readonly deny: readonly string[];
  readonly accept: readonly string[];
  readonly ignored_accept: readonly string[];
  /** What happens to a call no rule decides. */
  readonly unmatched: string;
  /** Rules that failed to compile; while any exists every call is denied. */
  readonly errors: readonly { readonly rule: string; readonly origin: string; readonly message: string }[];
}

/**
 * What policy alone decides for `argv` (deny / accept / unresolved), with the
 * deciding rule and the canonical argv; `places` as for evaluatePolicy.
 */
export function explainWith(policy: CompiledPolicy, argv: readonly string[], target?: string, places?: CredentialPlaces): Explanation {
  const { decision, canonical, canonicalTokens } = evaluatePolicy(policy, argv, places);
  const tool = policy.context.tool;
  const base = {
    tool,
    ...(target === undefined ? {} : { target }),
    decision: decision.result,
    source: decision.source,
    reason: decision.reason,
    ...("rule" in decision ? { rule: decision.rule } : {}),
    ...(canonicalTokens === undefined ? {} : { canonical_argv: canonicalTokens }),
  };
  if (decision.result !== "unresolved" || canonical === undefined || canonicalTokens === undefined) return base;
  return { ...base, grants: suggestGrants(tool, target, canonical, decision.fileWrite?.minimumPrefix) };
}

/** The effective rules of an already compiled policy. */
export function effectivePolicyOf(policy: CompiledPolicy, target?: string): EffectivePolicy {
  const context = policy.context;
  const texts = (list: readonly { ref: RuleRef }[]): string[] => list.map((rule) => rule.ref.text);
  return {
    tool: context.tool,
    ...(target === undefined ? {} : { target }),
    minimum_accept_tokens: context.settings.minimumAcceptTokens,
    deny: texts(policy.deny.all),
    accept: texts(policy.accept.all),
    ignored_accept: policy.ignoredAccept.map((rule) => rule.text),
    unmatched: "unresolved: a grant or the operator's approval decides; without either the call is denied",
    errors: policy.errors.map((error) => ({ rule: error.ref.text, origin: error.ref.origin, message: error.message })),
  };
}

/**
 * The rules that come nearest to deciding `tokens` (the canonical argv): those
 * whose leading words agree with the argv's leading tokens, most shared words
 * first, at most `limit`. What the approval page shows under "why nothing
 * decided"; a rule that shares no leading word is not near.
 */
export function nearestRules(effective: EffectivePolicy, tokens: readonly string[], limit = 3): { readonly list: "deny" | "accept"; readonly rule: string }[] {
  const shared = (rule: string): number => {
    const words = rule.trim().split(/\s+/);
    let count = 0;
    while (count < words.length && count < tokens.length && words[count] === tokens[count]) count += 1;
    return count;
  };
  const scored = [
    ...effective.deny.map((rule) => ({ list: "deny" as const, rule, score: shared(rule) })),
    ...effective.accept.map((rule) => ({ list: "accept" as const, rule, score: shared(rule) })),
  ];
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.rule.localeCompare(b.rule))
    .slice(0, limit)
    .map(({ list, rule }) => ({ list, rule }));
}
