/**
 * Always allow / Always deny from the approval page: Always allow adds the
 * exact rule of the call (policy/exact-rule.ts: this call, never a token
 * more), Always deny the call's canonical argv as a literal rule (a prefix,
 * which the page says in words), added to the rules.yaml in force for the
 * call (the target's own file when it has one, else the provider's shared
 * file; a target's file is never created, since it would replace the shared
 * accepts for that target; a rule in the shared file decides the same call on
 * every target without a rules.yaml of its own, and the page's words name them).
 * Before the page offers it, the change is
 * simulated against the recent audited calls (pipeline/rule-change-preview.ts
 * and policy/rule-simulation.ts, shared with `torii policy edit`), and a rule
 * that would not take effect (a deny or the floor wins, the rule does not
 * compile: an exact rule too large for the regex engine) is offered disabled
 * with the reason. A call whose argv holds a character that does not show on
 * screen gets no rule at all, offered or added (lasting-answers.ts): the
 * operator could not read what the rule keeps. The edit
 * itself goes through config/rules-edit.ts: comments and layout kept, atomic.
 */
import { readRecentCalls, type RecentCall } from "../audit/recent-calls.js";
import { readPolicyTexts, type ProviderEntry } from "../config/registry.js";
import { EMPTY_RULES_TEXT, editRulesFile } from "../config/rules-edit.js";
import type { AddedRule, ApprovalRequest } from "../pipeline/gates.js";
import { policiesWith, previewRuleEdit } from "../pipeline/rule-change-preview.js";
import { exactAcceptRule } from "../policy/exact-rule.js";
import { ruleTakesEffect } from "../policy/rule-simulation.js";
import type { RuleEditor } from "./apply-answer.js";
import type { AffectedCalls, RuleOffer } from "./page-model.js";
import { lastingAnswerRefusal } from "./lasting-answers.js";

/** How many other affected heads the page lists per rule. */
const MAX_AFFECTED_LINES = 10;

/** The literal rule naming these tokens (a deny: this call and every call it prefixes), or why none can. */
function literalRule(tokens: readonly string[]): { rule: string } | { reason: string } {
  if (tokens.length === 0) return { reason: "the call has no arguments to name" };
  if (tokens.some((token) => token === "" || /\s/.test(token))) return { reason: "a token is empty or contains white space, which a literal rule cannot name" };
  const rule = tokens.join(" ");
  if (rule.startsWith("/")) return { reason: "the rule would read as a regular expression (it starts with /)" };
  return { rule };
}

/** What each offered rule covers, in the page's words. */
const OFFER_SCOPE = {
  accept: "It allows exactly this call, as the canonical argv above reads: no token added, removed or changed.",
  deny: "It denies this call and every call that starts with these tokens (more arguments or options too).",
} as const;

/**
 * The other targets a rule of `effect` written to the provider's shared rules.yaml also decides for: for an accept,
 * every target with no rules.yaml of its own (one whose files cannot be read is left out: its calls are denied until
 * they can); for a deny, every target, since a shared deny is a floor no target's rules.yaml lifts (policy/compile.ts).
 */
function sharedWith(provider: ProviderEntry, alias: string | undefined, effect: "accept" | "deny"): string[] {
  return [...provider.targets.keys()].filter((other) => {
    if (other === alias) return false;
    if (effect === "deny") return true;
    try {
      return readPolicyTexts(provider, other).target === undefined;
    } catch {
      return false;
    }
  });
}

/**
 * The page's words for what a rule of `effect` written to `file` covers. A rule in the shared rules.yaml is not
 * the call's target's alone: an accept decides the same call on every target without a rules.yaml of its own, a
 * deny on every target, those there now and those added later. "Exactly this call" would let an operator answering for a development
 * target allow the same command on production without a word about it (a grant, by contrast, is the target's).
 */
function offerScope(provider: ProviderEntry, target: ApprovalRequest["target"], effect: "accept" | "deny", file: string): string {
  const scope = OFFER_SCOPE[effect];
  if (file !== provider.rulesPath || (target === undefined && provider.targets.size === 0 && !provider.targetAware)) return scope;
  const others = sharedWith(provider, target?.name, effect);
  const where = target === undefined ? "" : `, not only on ${target.name}`;
  const now = others.length === 0 ? "no other target now" : `now also ${others.join(", ")}`;
  if (effect === "deny") {
    return `${scope} It goes to the shared rules of ${provider.tool}, so it denies the same call on every target of ${provider.tool}, those with a rules.yaml of their own too${where}: ${now}, and any target added later.`;
  }
  return `${scope} It goes to the shared rules of ${provider.tool}, so it allows the same call on every target of ${provider.tool} without a rules.yaml of its own${where}: ${now}, and any such target added later.`;
}

/**
 * The rule offered for `effect`: an accept is the exact rule (policy/exact-rule.ts),
 * since a wider accept is not what the operator saw; a deny is the literal prefix
 * rule, wider on purpose (a deny that also covers an appended argument fails closed).
 */
function proposedRule(provider: ProviderEntry, request: ApprovalRequest, effect: "accept" | "deny", file: string): { rule: string } | { reason: string } {
  if (effect === "deny") return literalRule(request.canonicalTokens);
  const texts = readPolicyTexts(provider, request.target?.name);
  const current = file === provider.rulesPath ? texts.shared.text : (texts.target?.text ?? EMPTY_RULES_TEXT);
  const { before } = policiesWith(provider, request.target?.name, { file, text: current });
  return exactAcceptRule(before, request.canonicalTokens);
}

function offerFor(request: ApprovalRequest, effect: "accept" | "deny", calls: readonly RecentCall[]): RuleOffer {
  const { provider, target } = request;
  const ownFile = target !== undefined && readPolicyTexts(provider, target.name).target !== undefined;
  const alias = ownFile ? target.name : undefined;
  const file = ownFile ? target.rulesPath : provider.rulesPath;
  const scope = offerScope(provider, target, effect, file);
  const proposed = proposedRule(provider, request, effect, file);
  if (!("rule" in proposed)) return { effect, rule: request.canonicalTokens.join(" "), scope, file, alsoAffects: [], disabledReason: proposed.reason };
  const { rule } = proposed;
  const preview = previewRuleEdit(provider, alias, { action: "add", list: effect, rule }, calls);
  const wanted = effect === "accept" ? "newly-allowed" : "newly-denied";
  const alsoAffects = preview.scopes
    .flatMap((scope) =>
      scope.outcomes
        .filter((outcome) => outcome.change === wanted)
        .map((outcome): AffectedCalls => ({ scope: scope.scope, head: outcome.head, calls: outcome.calls.length, certain: outcome.certain })),
    )
    .slice(0, MAX_AFFECTED_LINES);
  const { after } = policiesWith(provider, target?.name, { file, text: preview.text });
  const takes = ruleTakesEffect(after, effect, rule, request.canonicalTokens);
  return { effect, rule, scope, file, alsoAffects, ...(takes.effective ? {} : { disabledReason: takes.reason }) };
}

/** The rule editor over the configuration files, simulating against `auditFile`'s recent calls. */
export function fileRuleEditor(auditFile: string): RuleEditor {
  const recent = (): RecentCall[] => {
    try {
      return readRecentCalls(auditFile);
    } catch {
      return []; // an unreadable log shows no other affected calls; the rule itself is still checked
    }
  };
  return {
    offers(request) {
      if (lastingAnswerRefusal(request.canonicalTokens) !== undefined) return [];
      const calls = recent();
      const offers: RuleOffer[] = [];
      for (const effect of ["accept", "deny"] as const) {
        try {
          offers.push(offerFor(request, effect, calls));
        } catch {
          // A rules file that no longer parses offers no permanent choice; the page keeps the others.
        }
      }
      return offers;
    },
    async add(request, effect, shown): Promise<AddedRule> {
      const refusal = lastingAnswerRefusal(request.canonicalTokens);
      if (refusal !== undefined) throw new Error(`no rule is written for this call: ${refusal}`);
      const offer = offerFor(request, effect, recent());
      if (offer.disabledReason !== undefined) throw new Error(`the rule would not take effect: ${offer.disabledReason}`);
      // The rules may have changed while the page waited: write only the rule the operator saw, to the file it named.
      if (!shown.some((seen) => seen.effect === effect && seen.rule === offer.rule && seen.file === offer.file)) {
        throw new Error("the rules changed since the page showed this rule, so it is no longer the one shown; nothing was added");
      }
      const written = await editRulesFile(offer.file, { action: "add", list: effect, rule: offer.rule });
      const origin = written.after[effect].find((spec) => spec.text === offer.rule)?.origin ?? offer.file;
      return { effect, rule: offer.rule, origin };
    },
  };
}
