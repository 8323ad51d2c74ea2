/**
 * What the approval page shows and what an answer from it may say. The model
 * is built once per approval by the approver (page-approver.ts) from the
 * pipeline's request; the page renders it (page-html.ts) and the page server
 * validates answers against it (page-server.ts) and its offer (page-offer.ts).
 */
import * as z from "zod";
import type { GrantSuggestions } from "../policy/grant-suggestion.js";
import type { PageOffer } from "./page-offer.js";

/** A permanent rule the page offers (Always allow / Always deny). */
export interface RuleOffer {
  readonly effect: "accept" | "deny";
  /** The rule's text as it would be written. */
  readonly rule: string;
  /** What the rule covers, in words (exactly this call, or every call it prefixes). */
  readonly scope: string;
  /** The rules.yaml it would be added to. */
  readonly file: string;
  /** Why the rule would not take effect (a deny or the floor wins); the choice is then shown disabled. */
  readonly disabledReason?: string;
  /** Recent audited calls whose decision the rule would change, grouped by scope and head. */
  readonly alsoAffects: readonly AffectedCalls[];
}

/**
 * Recent audited calls a rule would decide otherwise, as the audit log keeps
 * them: a scope and a call's head (both from what agents sent, so the page
 * shows them with every odd character visible), how many calls, and whether
 * the rule is known to change all of them or only some (an exact rule read
 * against a head).
 */
export interface AffectedCalls {
  readonly scope: string;
  readonly head: readonly string[];
  readonly calls: number;
  readonly certain: boolean;
}

export interface PageModel {
  readonly id: string;
  readonly tool: string;
  readonly target?: string;
  /** The target's lease as the operator should read it ("active until …"), or why there is none. */
  readonly lease: string;
  /** The canonical argv, token by token. */
  readonly tokens: readonly string[];
  /** The agent's own words: shown labelled as unverified, never used to decide. */
  readonly description?: string;
  /** Why policy decided nothing. */
  readonly reason: string;
  readonly nearestRules: readonly { readonly list: "deny" | "accept"; readonly rule: string }[];
  readonly grants: GrantSuggestions;
  readonly expiresAt: string;
  readonly rules: readonly RuleOffer[];
  /** What the page offers (page-offer.ts `callPageOffer`): it renders these choices, and the server takes no other. */
  readonly offer: PageOffer;
}

/**
 * What the page server hands each rendering of a page: its path (`/a/<id>`),
 * what is left of the session's settle period (ms), and the session's page key
 * (page-session.ts), which only that one HTML response carries.
 */
export interface SessionFrame {
  readonly base: string;
  readonly settleMs: number;
  readonly pageKey: string;
}

/** A SessionFrame with the page's CSRF token: everything a page's HTML needs besides its model. */
export interface PageFrame extends SessionFrame {
  readonly csrf: string;
}

/** The longest grant or lease a page may give, in minutes (one day). */
export const MAX_PAGE_MINUTES = 1440;

const csrf = z.string().min(1).max(128);
const minutes = z.int().min(1).max(MAX_PAGE_MINUTES);

/** The body of a POST to `…/answer`. */
export const pageAnswerSchema = z.discriminatedUnion("choice", [
  z.strictObject({ choice: z.literal("deny"), csrf }),
  z.strictObject({ choice: z.literal("once"), csrf }),
  z.strictObject({ choice: z.literal("grant"), csrf, mode: z.enum(["exact", "prefix"]), token_count: z.int().min(1), minutes }),
  z.strictObject({ choice: z.literal("rule-accept"), csrf }),
  z.strictObject({ choice: z.literal("rule-deny"), csrf }),
  z.strictObject({ choice: z.literal("lease-replace"), csrf, minutes }),
  z.strictObject({ choice: z.literal("lease-add"), csrf, minutes }),
]);

export type PageAnswer = z.infer<typeof pageAnswerSchema>;

/** The body of a POST to `…/hold`: the page's "hold started" request. */
export const holdStartSchema = z.strictObject({ csrf });

/** Choices that allow the call or change policy: they need the press-and-hold, and the server refuses them sooner than SERVER_HOLD_MS after the session's hold request. */
export function needsHold(choice: PageAnswer["choice"]): boolean {
  return choice !== "deny";
}
