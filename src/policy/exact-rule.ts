/**
 * The exact accept rule for one call: what the approval page's "Always allow"
 * writes. A literal rule is a whole-token prefix (`exec web-1 -- env` also
 * accepts `exec web-1 -- env sh -c id`; an argparse rule's options match
 * anywhere, so `--parameters commands=uptime` also accepts a second, later
 * `--parameters`), so the rule offered for "this call" is a regex rule that
 * Torii writes and escapes itself, anchored at both ends, over the text accept
 * rules are matched against: the space-joined canonical argv after
 * `ignore_args`, read per resource type and with a sub-command's first name as
 * the evaluator does (resource-decision.ts). Every reading of the call is one
 * alternative, so the rule accepts this call and calls that are one of its
 * readings (`get pods x` for `get pods,secrets x`), never a token more.
 *
 * Pure: compiled policy and argv in, rule text out.
 */
import type { CompiledPolicy } from "./compile.js";
import { exactPattern, nameableTokens } from "./exact-pattern.js";
import { evaluatePolicy, normaliseForEvaluation, type EvaluationView } from "./evaluate.js";
import { withPositionals } from "./resource-decision.js";
import { canonicalCommand } from "./resource-types.js";
import { MAX_RESOURCE_VIEWS, resourceViews } from "./resource-views.js";

/** The texts accept rules see for `view`: one per resource reading, else the view itself. */
function readingTexts(view: EvaluationView, policy: CompiledPolicy): string[] {
  const types = policy.resourceTypes;
  const views = types === undefined ? undefined : resourceViews(view.positionals, types, { dropGroup: false, limit: MAX_RESOURCE_VIEWS });
  return views === undefined ? [view.joined] : views.map((positionals) => withPositionals(view, positionals).joined);
}

/**
 * The regex accept rule that matches exactly the call `argv` (the agent's argv
 * or its canonical tokens) under `policy`, or why none can be written.
 */
export function exactAcceptRule(policy: CompiledPolicy, argv: readonly string[]): { readonly rule: string } | { readonly reason: string } {
  if (argv.length === 0) return { reason: "the call has no arguments to name" };
  if (!nameableTokens(argv)) {
    return { reason: "a token is empty or contains white space or a control character, which an exact rule cannot delimit" };
  }
  const { canonical } = evaluatePolicy(policy, argv);
  if (canonical === undefined) return { reason: "the call does not parse, so no rule can name it" };
  const view = normaliseForEvaluation(policy, canonical);
  if (view.joined === "") return { reason: "nothing is left of the call once ignore_args are dropped" };
  const command = policy.resourceTypes === undefined ? undefined : canonicalCommand(view.positionals, policy.resourceTypes);
  const texts = new Set([...(command === undefined ? [] : readingTexts(withPositionals(view, command), policy)), ...readingTexts(view, policy)]);
  return { rule: exactPattern([...texts]) };
}
