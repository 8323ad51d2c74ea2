/**
 * Jasper, the decision procedure, in its fixed order:
 *
 *   canonicalise (locked options, forbidden values, unparseable spellings)
 *   → a policy that failed to compile denies everything
 *   → forbidden_args, in any position
 *   → ignore_args normalisation (for evaluation only)
 *   → explicit deny → accept → unresolved
 *
 * Any exception along the way is a deny (`policy-error`): the engine fails closed.
 */
import type { CompiledPolicy, CompiledRule, LiteralRule, RuleIndex } from "./compile.js";
import { canonicalise } from "./grammar/canonicalise.js";
import { flattenCanonical, type ArgvRejection, type CanonicalArgv } from "./grammar/types.js";
import type { DenyDecision, PolicyDecision, PolicyEvaluation, RuleRef } from "./types.js";

/** The canonical argv after `ignore_args`, as rules see it. */
export interface EvaluationView {
  readonly positionals: readonly string[];
  readonly options: readonly string[];
  readonly hasTail: boolean;
  readonly tail: readonly string[];
  /** Space-joined tokens, for regex rules. */
  readonly joined: string;
}

function optionName(token: string): string {
  const equals = token.indexOf("=");
  return equals === -1 ? token : token.slice(0, equals);
}

/** Applies `ignore_args`: leading tokens dropped repeatedly, listed options dropped anywhere. */
export function normaliseForEvaluation(policy: CompiledPolicy, canonical: CanonicalArgv): EvaluationView {
  let start = 0;
  while (start < canonical.positionals.length && policy.ignoreLeading.has(canonical.positionals[start] as string)) {
    start += 1;
  }
  const keep = (token: string): boolean => !policy.ignoreFlags.has(optionName(token));
  const view = {
    positionals: canonical.positionals.slice(start).filter(keep),
    options: canonical.options.filter(keep),
    hasTail: canonical.hasTail,
    tail: canonical.tail,
  };
  return { ...view, joined: flattenCanonical(view).join(" ") };
}

function isPrefix(prefix: readonly string[], tokens: readonly string[]): boolean {
  return prefix.length <= tokens.length && prefix.every((token, i) => tokens[i] === token);
}

/**
 * A rule option without a value (`--raw`) matches that option with any value;
 * with a value (`--namespace=x`) it matches exactly. Each rule option consumes
 * one argv option, so a rule that names an option twice needs it twice.
 */
function optionsIncluded(ruleOptions: readonly string[], argvOptions: readonly string[]): boolean {
  const available = [...argvOptions];
  for (const wanted of ruleOptions) {
    const at = wanted.includes("=")
      ? available.indexOf(wanted)
      : available.findIndex((option) => option === wanted || option.startsWith(`${wanted}=`));
    if (at === -1) return false;
    available.splice(at, 1);
  }
  return true;
}

/**
 * A literal rule matches when its positional tokens are a whole-token prefix of
 * the argv's (`s3 ls` does not match `s3api`), every option it names is present,
 * and its `--` tail, if any, prefixes the argv's tail.
 */
export function literalMatches(rule: CanonicalArgv, view: EvaluationView): boolean {
  if (!isPrefix(rule.positionals, view.positionals)) return false;
  if (rule.options.length > 0 && !optionsIncluded(rule.options, view.options)) return false;
  if (rule.hasTail && !(view.hasTail && isPrefix(rule.tail, view.tail))) return false;
  return true;
}

function ruleMatches(rule: CompiledRule, view: EvaluationView): boolean {
  return rule.kind === "regex" ? rule.regex.test(view.joined) : literalMatches(rule.canonical, view);
}

/**
 * Picks the reported rule among the matches independently of rule order: the
 * most specific literal, then regex rules; ties broken by text and origin.
 */
function moreSpecific(a: CompiledRule, b: CompiledRule): boolean {
  const weight = (rule: CompiledRule): number => (rule.kind === "literal" ? rule.tokenCount : -1);
  if (weight(a) !== weight(b)) return weight(a) > weight(b);
  if (a.ref.text !== b.ref.text) return a.ref.text < b.ref.text;
  return a.ref.origin < b.ref.origin;
}

/** The deciding rule of one list, or undefined when none matches. */
export function findMatch(index: RuleIndex, view: EvaluationView): RuleRef | undefined {
  let best: CompiledRule | undefined;
  const consider = (rule: CompiledRule): void => {
    if (ruleMatches(rule, view) && (best === undefined || moreSpecific(rule, best))) best = rule;
  };
  const first = view.positionals[0];
  const bucket: readonly LiteralRule[] = first === undefined ? [] : (index.byFirstToken.get(first) ?? []);
  bucket.forEach(consider);
  index.optionOnly.forEach(consider);
  index.regex.forEach(consider);
  return best?.ref;
}

function describeRule(rule: RuleRef): string {
  return `${rule.list} rule ${JSON.stringify(rule.text)} (${rule.layer}, ${rule.origin})`;
}

function forbiddenIn(policy: CompiledPolicy, tokens: readonly string[]): string | undefined {
  for (const token of tokens) {
    for (const forbidden of policy.forbiddenArgs) {
      if (token === forbidden || token.startsWith(`${forbidden}=`)) return forbidden;
    }
  }
  return undefined;
}

function decideUnchecked(policy: CompiledPolicy, canonical: CanonicalArgv): PolicyDecision {
  if (policy.errors.length > 0) {
    const first = policy.errors[0];
    const where = first ? `: ${describeRule(first.ref)} ${first.message}` : "";
    return {
      result: "deny",
      source: "policy-error",
      reason: `the policy for ${policy.context.tool} has ${policy.errors.length} invalid rule(s), so every call is denied until the operator fixes it${where}`,
    };
  }
  const forbidden = forbiddenIn(policy, flattenCanonical(canonical));
  if (forbidden !== undefined) {
    return { result: "deny", source: "forbidden-arg", forbidden, reason: `${forbidden} is a forbidden argument for ${policy.context.tool}` };
  }
  const view = normaliseForEvaluation(policy, canonical);
  const denied = findMatch(policy.deny, view);
  if (denied !== undefined) {
    return { result: "deny", source: "explicit-deny", rule: denied, reason: `denied by ${describeRule(denied)}` };
  }
  const accepted = findMatch(policy.accept, view);
  if (accepted !== undefined) {
    return { result: "accept", source: "rules", rule: accepted, reason: `accepted by ${describeRule(accepted)}` };
  }
  return {
    result: "unresolved",
    source: "no-rule",
    reason: `no rule of ${policy.context.tool} accepts this call; a grant or the operator's approval is needed`,
  };
}

function failedClosed(error: unknown): PolicyDecision {
  return { result: "deny", source: "policy-error", reason: `policy evaluation failed, so the call is denied: ${(error as Error).message}` };
}

/**
 * Decides a canonical argv (the server canonicalises first, as its own step).
 * Never throws: an internal error is a deny.
 */
export function decideCanonical(policy: CompiledPolicy, canonical: CanonicalArgv): PolicyDecision {
  try {
    return decideUnchecked(policy, canonical);
  } catch (error) {
    return failedClosed(error);
  }
}

/** The decision for an argv the grammar refused. */
export function rejectionDecision(rejection: ArgvRejection): DenyDecision {
  if (rejection.kind === "locked-option") {
    return { result: "deny", source: "locked-option", reason: rejection.reason, option: rejection.option ?? rejection.token };
  }
  return { result: "deny", source: rejection.kind, reason: rejection.reason };
}

/** Evaluates an argument vector; never throws (an internal error is a deny). */
export function evaluatePolicy(policy: CompiledPolicy, argv: readonly string[]): PolicyEvaluation {
  try {
    const result = canonicalise(argv, policy.grammar, "agent");
    if (!result.ok) return { decision: rejectionDecision(result.rejection) };
    const decision = decideUnchecked(policy, result.canonical);
    return { decision, canonical: result.canonical, canonicalTokens: flattenCanonical(result.canonical) };
  } catch (error) {
    return { decision: failedClosed(error) };
  }
}
