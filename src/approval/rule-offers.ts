/**
 * Always allow / Always deny from the approval page: the rule is the call's
 * canonical argv as a literal rule, added to the rules.yaml in force for the
 * call (the target's own file when it has one, else the provider's shared
 * file; a target's file is never created, since it would replace the shared
 * accepts for that target). Before the page offers it, the change is
 * simulated against the recent audited calls (pipeline/rule-change-preview.ts
 * and policy/rule-simulation.ts, shared with `torii policy edit`), and a rule
 * that would not take effect (a deny or the floor wins, the accept floor of
 * `minimum_accept_tokens`) is offered disabled with the reason. The edit
 * itself goes through config/rules-edit.ts: comments and layout kept, atomic.
 */
import { readRecentCalls, type RecentCall } from "../audit/recent-calls.js";
import { readPolicyTexts } from "../config/registry.js";
import { editRulesFile } from "../config/rules-edit.js";
import type { AddedRule, ApprovalRequest } from "../pipeline/gates.js";
import { policiesWith, previewRuleEdit } from "../pipeline/rule-change-preview.js";
import { ruleTakesEffect } from "../policy/rule-simulation.js";
import type { RuleEditor } from "./apply-answer.js";
import type { RuleOffer } from "./page-model.js";

/** How many other affected heads the page lists per rule. */
const MAX_AFFECTED_LINES = 10;

/** The literal rule naming exactly these tokens, or why none can. */
function literalRule(tokens: readonly string[]): { rule: string } | { reason: string } {
  if (tokens.length === 0) return { reason: "the call has no arguments to name" };
  if (tokens.some((token) => token === "" || /\s/.test(token))) return { reason: "a token is empty or contains white space, which a literal rule cannot name" };
  const rule = tokens.join(" ");
  if (rule.startsWith("/")) return { reason: "the rule would read as a regular expression (it starts with /)" };
  return { rule };
}

function offerFor(request: ApprovalRequest, effect: "accept" | "deny", calls: readonly RecentCall[]): RuleOffer {
  const { provider, target } = request;
  const ownFile = target !== undefined && readPolicyTexts(provider, target.name).target !== undefined;
  const alias = ownFile ? target.name : undefined;
  const file = ownFile ? target.rulesPath : provider.rulesPath;
  const literal = literalRule(request.canonicalTokens);
  if (!("rule" in literal)) return { effect, rule: request.canonicalTokens.join(" "), file, alsoAffects: [], disabledReason: literal.reason };
  const { rule } = literal;
  const preview = previewRuleEdit(provider, alias, { action: "add", list: effect, rule }, calls);
  const wanted = effect === "accept" ? "newly-allowed" : "newly-denied";
  const alsoAffects = preview.scopes
    .flatMap((scope) =>
      scope.outcomes
        .filter((outcome) => outcome.change === wanted)
        .map(
          (outcome) =>
            `${scope.scope}: ${outcome.head.join(" ")} … (${outcome.calls.length} call${outcome.calls.length === 1 ? "" : "s"}${outcome.certain ? "" : ", some of them"})`,
        ),
    )
    .slice(0, MAX_AFFECTED_LINES);
  const { after } = policiesWith(provider, target?.name, { file, text: preview.text });
  const takes = ruleTakesEffect(after, effect, rule, request.canonicalTokens);
  return { effect, rule, file, alsoAffects, ...(takes.effective ? {} : { disabledReason: takes.reason }) };
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
    async add(request, effect): Promise<AddedRule> {
      const offer = offerFor(request, effect, recent());
      if (offer.disabledReason !== undefined) throw new Error(`the rule would not take effect: ${offer.disabledReason}`);
      await editRulesFile(offer.file, { action: "add", list: effect, rule: offer.rule });
      return { effect, rule: offer.rule };
    },
  };
}
