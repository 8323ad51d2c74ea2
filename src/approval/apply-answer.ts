/**
 * Turns the operator's recorded answer into the pipeline's ApprovalAnswer,
 * carrying out what it asks for: a grant through the grant store (the same
 * file the grant gate reads), a rule through the rule editor. An answer that
 * does not fit the call (a prefix longer than the argv or shorter than a file
 * write's hold, a mode it does not know), a rule other than the one the page
 * showed, a grant or a rule for an argv holding characters that do not show on
 * screen, or one that cannot be carried out allows nothing. What fits is
 * decided by lasting-answers.ts, as for the page and the terminal, whichever
 * front door recorded the answer.
 *
 * A grant is written under the grants file's lock only after the pending
 * record, re-read under that lock, was marked `written` (ApprovalStore.claimGrant).
 * The server sees an answer only when it carries it out, so a
 * `torii grant clear|revoke` it would find may have come after the operator
 * answered: the revocation marks such answers `superseded` under the same lock,
 * and then nothing is written and the call is denied too (the operator's allow
 * came with the grant they have since revoked; the agent makes the call again).
 */
import type { Settings } from "../config/settings.js";
import type { AddedRule, ApprovalAnswer, ApprovalRequest } from "../pipeline/gates.js";
import type { ApprovalAnswerRecord, ApprovalStore } from "../state/approval-store.js";
import { grantEvidence } from "../state/fingerprints.js";
import { GrantStore, grantsFileOf } from "../state/grant-store.js";
import { grantRefusal, lastingAnswerRefusal, lastingAnswersOf } from "./lasting-answers.js";
import type { RuleOffer } from "./page-model.js";

/** Adds Always allow / Always deny rules; the page offers only what `offers` returns. */
export interface RuleEditor {
  /** The rules the page offers for this call (with what each would change, or why it is disabled). */
  offers(request: ApprovalRequest): readonly RuleOffer[];
  /**
   * Adds the offered rule of `effect` to its rules.yaml. `shown`: the rules the page showed when it was rendered;
   * the rule offered now must be one of them (same rule, same file).
   * @throws when it is not offered, is not what the page showed, or cannot be written.
   */
  add(request: ApprovalRequest, effect: "accept" | "deny", shown: readonly RuleOffer[]): Promise<AddedRule>;
}

/** Who answered through which channel, as the audit log records it (never a secret). */
export function answeredBy(answer: Pick<ApprovalAnswerRecord, "channel" | "by">): string {
  return answer.channel === "cli" ? `cli by ${answer.by}` : "page";
}

function refused(reason: string, by: string): ApprovalAnswer {
  return { result: "deny", source: "human-deny", reason, answeredBy: by };
}

/** Carries out `answer` for `request` and says what the pipeline should do. */
export async function applyAnswer(
  answer: ApprovalAnswerRecord,
  request: ApprovalRequest,
  deps: {
    readonly settings: Settings;
    readonly rules: RuleEditor;
    readonly shownRules: readonly RuleOffer[];
    /** The pending approval that holds the answer: a grant is written only if no revocation superseded it there. */
    readonly approval: { readonly store: ApprovalStore; readonly id: string };
  },
): Promise<ApprovalAnswer> {
  const by = answeredBy(answer);
  const tokens = request.canonicalTokens;
  const lasting = answer.choice === "grant" || answer.choice === "rule-accept" || answer.choice === "rule-deny";
  const noLasting = lasting ? lastingAnswerRefusal(tokens) : undefined;
  if (noLasting !== undefined) return refused(`the operator's ${answer.choice === "grant" ? "grant" : "rule"} was not carried out: ${noLasting}`, by);
  switch (answer.choice) {
    case "once":
      return { result: "allow", source: "human-once", answeredBy: by };
    case "deny":
      return refused("the operator denied this call", by);
    case "grant": {
      const count = answer.token_count ?? tokens.length;
      const mode = answer.mode ?? "exact";
      // The same decision as the page's offer and the terminal's check, on this server's own request (not the file's copy).
      const misfit = grantRefusal(lastingAnswersOf({ tokens, hold: request.hold }), { mode, tokenCount: count });
      if (misfit !== undefined) return refused(`the operator's grant does not fit this call, so nothing was granted: ${misfit}`, by);
      const minutes = answer.minutes ?? deps.settings.defaultGrantMinutes;
      const { store, id } = deps.approval;
      let claimed: Awaited<ReturnType<ApprovalStore["claimGrant"]>> | undefined;
      try {
        // Under the grants file's lock, as `torii grant clear|revoke` supersedes answers: one of the two comes first.
        // Never creating the file's directory: a target `torii target remove` deleted while the answer waited stays gone.
        const entry = await new GrantStore(grantsFileOf(request.provider, request.target), { createDirectory: false }).add(
          mode,
          tokens.slice(0, count),
          minutes,
          async () => {
            claimed = await store.claimGrant(id);
            if (!claimed.ok) throw new Error(claimed.detail);
          },
        );
        return { result: "allow", source: "human-grant", answeredBy: by, grant: `${grantEvidence(entry.matcher)} for ${minutes} min` };
      } catch (error) {
        if (claimed?.ok === false && claimed.refusal === "superseded") {
          const scope = request.target === undefined ? request.provider.tool : `${request.provider.tool} ${request.target.name}`;
          return refused(
            `grants of ${scope} were cleared or revoked after the operator answered (${claimed.detail}), so nothing was granted and the call is not allowed: make the call again to ask afresh`,
            by,
          );
        }
        return refused(`the operator's grant could not be written (${error instanceof Error ? error.message : String(error)})`, by);
      }
    }
    case "rule-accept":
    case "rule-deny": {
      const effect = answer.choice === "rule-accept" ? "accept" : "deny";
      let addedRule: AddedRule;
      try {
        addedRule = await deps.rules.add(request, effect, deps.shownRules);
      } catch (error) {
        return refused(`the operator's rule could not be added (${error instanceof Error ? error.message : String(error)})`, by);
      }
      return effect === "accept"
        ? { result: "allow", source: "rules", answeredBy: by, addedRule }
        : { result: "deny", source: "human-deny", reason: "the operator denied this call and added a deny rule", answeredBy: by, addedRule };
    }
    default:
      return refused(`the answer ${answer.choice} does not apply to a call`, by);
  }
}
