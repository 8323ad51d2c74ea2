/**
 * The read-only policy query behind `torii_policy` and `torii policy check`:
 * the effective rules of a provider (and target), and what policy alone says
 * about an argv. It reads no environment, grants or leases; the caller passes
 * the rule files it loaded.
 */
import { compilePolicy, type CompiledPolicy } from "./compile.js";
import { evaluatePolicy } from "./evaluate.js";
import type { DecisionSource, LayeredRuleSpecs, ProviderPolicyContext, RuleRef } from "./types.js";

/** A grant the operator could add so that an unresolved call is allowed. */
export interface GrantSuggestion {
  readonly mode: "exact" | "prefix";
  readonly token_count: number;
  readonly tokens: readonly string[];
  /** The operator command that adds it. */
  readonly command: string;
}

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
  readonly grants?: { readonly exact: GrantSuggestion; readonly prefix: GrantSuggestion };
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

const SAFE_SHELL_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/u;

/** Quotes a token for display in a POSIX shell command line (display only: Torii never runs a shell). */
function shellQuote(token: string): string {
  return SAFE_SHELL_WORD.test(token) ? token : `'${token.replaceAll("'", `'\\''`)}'`;
}

function grantCommand(tool: string, target: string | undefined, mode: string, tokens: readonly string[]): string {
  const scope = target === undefined ? tool : `${tool} ${target}`;
  return `torii grant add ${scope} ${mode} -- ${tokens.map(shellQuote).join(" ")}`;
}

/**
 * The narrowest grants for an unresolved call: the exact canonical argv, and a
 * prefix ending before the first option (the command path), as Torii's approval
 * window suggests.
 */
export function suggestGrants(
  tool: string,
  target: string | undefined,
  canonicalTokens: readonly string[],
  commandPathLength: number,
): { exact: GrantSuggestion; prefix: GrantSuggestion } {
  const prefixCount = Math.max(1, Math.min(commandPathLength, canonicalTokens.length));
  const prefixTokens = canonicalTokens.slice(0, prefixCount);
  return {
    exact: {
      mode: "exact",
      token_count: canonicalTokens.length,
      tokens: canonicalTokens,
      command: grantCommand(tool, target, "--exact", canonicalTokens),
    },
    prefix: {
      mode: "prefix",
      token_count: prefixCount,
      tokens: prefixTokens,
      command: grantCommand(tool, target, `--prefix ${prefixCount}`, prefixTokens),
    },
  };
}

/**
 * The positionals before the first option-like token. For argparse the body
 * keeps the options Torii does not model (`--instance-ids i-1`) and for
 * `plain` every token is positional; the prefix grant ends before them.
 */
function commandPathLength(positionals: readonly string[]): number {
  const first = positionals.findIndex((token) => token.startsWith("-") && token !== "-");
  return first === -1 ? positionals.length : first;
}

/** What policy alone decides for `argv` (deny / accept / unresolved), with the deciding rule and the canonical argv. */
export function explainWith(policy: CompiledPolicy, argv: readonly string[], target?: string): Explanation {
  const { decision, canonical, canonicalTokens } = evaluatePolicy(policy, argv);
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
  return { ...base, grants: suggestGrants(tool, target, canonicalTokens, commandPathLength(canonical.positionals)) };
}

/** Compiles the layered rules and explains `argv`. Pure: the caller supplies the rule files. */
export function explain(
  context: ProviderPolicyContext,
  rules: LayeredRuleSpecs,
  argv: readonly string[],
  target?: string,
): Explanation {
  return explainWith(compilePolicy(context, rules), argv, target);
}

/** The effective rules for a provider (and target): the shared deny floor plus the target's, and the accepts in force. */
export function effectivePolicy(context: ProviderPolicyContext, rules: LayeredRuleSpecs, target?: string): EffectivePolicy {
  return effectivePolicyOf(compilePolicy(context, rules), target);
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
