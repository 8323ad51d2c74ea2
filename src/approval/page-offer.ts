/**
 * What an approval page offers, the one source for both of its sides: the
 * page renders its choices from the offer (page-html.ts, lease-page-html.ts)
 * and the page server refuses, before anything is recorded, an answer that
 * chooses anything else (page-server.ts). A POST is not a page: a process that
 * got hold of a session could otherwise send a prefix grant of one token for a
 * day, or a rule the page showed disabled.
 */
import { MAX_PAGE_MINUTES, type PageAnswer, type RuleOffer } from "./page-model.js";
import { lastingAnswerRefusal } from "./lasting-answers.js";

export interface PageOffer {
  /** The choices the page shows enabled. */
  readonly choices: readonly PageAnswer["choice"][];
  /** The call's canonical token count: an exact grant names every token. */
  readonly tokenCount: number;
  /** The prefix boundaries (token counts) offered for a prefix grant, ascending; empty when none is. */
  readonly prefixCounts: readonly number[];
  /** Why no prefix grant is offered, when `prefixCounts` is empty. */
  readonly noPrefixReason?: string;
  /** Why neither a grant nor a rule is offered (only Deny and Allow once), when that is so. */
  readonly noLastingReason?: string;
  /** The durations offered: every whole number of minutes from `min` to `max`, `initial` shown first. */
  readonly minutes: { readonly min: number; readonly max: number; readonly initial: number };
}

function minutesFrom(initial: number): PageOffer["minutes"] {
  return { min: 1, max: MAX_PAGE_MINUTES, initial: Math.min(Math.max(initial, 1), MAX_PAGE_MINUTES) };
}

/**
 * The call page's offer: Deny, Allow once, an exact grant, a prefix grant at
 * any boundary from `minimumPrefix` (a file write's hold, policy/file-write-hold.ts:
 * a shorter prefix grant would not allow this call) to the whole argv, and the
 * rules offered enabled (rule-offers.ts). A call whose canonical `tokens` hold
 * a character that does not show on screen gets Deny and Allow once only,
 * whatever rules it is handed (lasting-answers.ts): the operator cannot read
 * what a grant or a rule would keep.
 */
export function callPageOffer(call: {
  readonly tokens: readonly string[];
  readonly minimumPrefix?: number | undefined;
  readonly defaultMinutes: number;
  readonly rules: readonly RuleOffer[];
}): PageOffer {
  const tokenCount = call.tokens.length;
  const noLastingReason = lastingAnswerRefusal(call.tokens);
  if (noLastingReason !== undefined) {
    return {
      choices: ["deny", "once"],
      tokenCount,
      prefixCounts: [],
      noPrefixReason: noLastingReason,
      noLastingReason,
      minutes: minutesFrom(call.defaultMinutes),
    };
  }
  const first = Math.max(1, call.minimumPrefix ?? 1);
  const prefixCounts = Array.from({ length: Math.max(0, tokenCount - first + 1) }, (_, index) => first + index);
  const rules = call.rules
    .filter((rule) => rule.disabledReason === undefined)
    .map((rule): PageAnswer["choice"] => (rule.effect === "accept" ? "rule-accept" : "rule-deny"));
  const noPrefixReason =
    tokenCount === 0 ? "the call has no tokens to name" : "the call writes a local file, which only a grant naming its whole command allows";
  return {
    choices: ["deny", "once", "grant", ...rules],
    tokenCount,
    prefixCounts,
    ...(prefixCounts.length === 0 ? { noPrefixReason } : {}),
    minutes: minutesFrom(call.defaultMinutes),
  };
}

/** The lease page's offer: Deny, Replace and Add, for 1..MAX_PAGE_MINUTES minutes. */
export function leasePageOffer(defaultMinutes: number): PageOffer {
  return {
    choices: ["deny", "lease-replace", "lease-add"],
    tokenCount: 0,
    prefixCounts: [],
    noPrefixReason: "a lease page offers no grant",
    minutes: minutesFrom(defaultMinutes),
  };
}

/** Why `answer` is not among what `offer` offered, or undefined when it is. */
export function offerRefusal(offer: PageOffer, answer: PageAnswer): string | undefined {
  if (!offer.choices.includes(answer.choice)) return `the page did not offer the choice ${answer.choice}`;
  if (!("minutes" in answer)) return undefined;
  if (answer.minutes < offer.minutes.min || answer.minutes > offer.minutes.max) {
    return `the page offered ${offer.minutes.min} to ${offer.minutes.max} minutes, not ${answer.minutes}`;
  }
  if (answer.choice !== "grant") return undefined;
  if (answer.mode === "exact") return answer.token_count === offer.tokenCount ? undefined : `an exact grant names all ${offer.tokenCount} tokens of the call`;
  if (offer.prefixCounts.includes(answer.token_count)) return undefined;
  return offer.prefixCounts.length === 0
    ? `the page offered no prefix grant: ${offer.noPrefixReason ?? "none fits this call"}`
    : `the page offered prefix grants of ${offer.prefixCounts[0]} to ${offer.prefixCounts.at(-1)} tokens, not ${answer.token_count}`;
}
