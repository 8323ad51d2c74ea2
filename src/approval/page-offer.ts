/**
 * What an approval page offers, the one source for both of its sides: the
 * page renders its choices from the offer (page-html.ts, lease-page-html.ts)
 * and the page server refuses, before anything is recorded, an answer that
 * chooses anything else (page-server.ts). A POST is not a page: a process that
 * got hold of a session could otherwise send a prefix grant of one token for a
 * day, or a rule the page showed disabled.
 */
import { MAX_PAGE_MINUTES, type PageAnswer, type RuleOffer } from "./page-model.js";
import { grantRefusal, lastingAnswersOf, type LastingAnswers, type PrefixHold } from "./lasting-answers.js";

/** The lasting answers the call admits (lasting-answers.ts: token count, prefix boundaries and why not more), and: */
export interface PageOffer extends LastingAnswers {
  /** The choices the page shows enabled. */
  readonly choices: readonly PageAnswer["choice"][];
  /** The durations offered: every whole number of minutes from `min` to `max`, `initial` shown first. */
  readonly minutes: { readonly min: number; readonly max: number; readonly initial: number };
}

function minutesFrom(initial: number): PageOffer["minutes"] {
  return { min: 1, max: MAX_PAGE_MINUTES, initial: Math.min(Math.max(initial, 1), MAX_PAGE_MINUTES) };
}

/**
 * The call page's offer: Deny, Allow once, the grants the call admits
 * (lasting-answers.ts: an exact grant, a prefix grant at any boundary from a
 * file write's hold, policy/file-write-hold.ts, to the whole argv), and the
 * rules offered enabled (rule-offers.ts). A call whose canonical `tokens` hold
 * a character that does not show on screen gets Deny and Allow once only,
 * whatever rules it is handed: the operator cannot read what a grant or a rule
 * would keep.
 */
export function callPageOffer(call: {
  readonly tokens: readonly string[];
  readonly hold?: PrefixHold | undefined;
  readonly defaultMinutes: number;
  readonly rules: readonly RuleOffer[];
}): PageOffer {
  const lasting = lastingAnswersOf(call);
  if (lasting.noLastingReason !== undefined) return { ...lasting, choices: ["deny", "once"], minutes: minutesFrom(call.defaultMinutes) };
  const rules = call.rules
    .filter((rule) => rule.disabledReason === undefined)
    .map((rule): PageAnswer["choice"] => (rule.effect === "accept" ? "rule-accept" : "rule-deny"));
  return { ...lasting, choices: ["deny", "once", "grant", ...rules], minutes: minutesFrom(call.defaultMinutes) };
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
  const refusal = grantRefusal(offer, { mode: answer.mode, tokenCount: answer.token_count });
  return refusal === undefined ? undefined : `the page did not offer this grant: ${refusal}`;
}
