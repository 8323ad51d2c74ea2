/**
 * What a call may be answered with that outlasts it: a grant (exact, or a
 * prefix from which boundary) or an Always allow / Always deny rule. The
 * approval page (page-offer.ts), its rule editor (rule-offers.ts), the terminal
 * (`torii approvals list|approve`) and the server that carries out a recorded
 * answer (apply-answer.ts) all ask `lastingAnswersOf` and `grantRefusal`, so
 * no front door grants what another refuses.
 *
 * Two things narrow it. A call whose canonical tokens hold a character that
 * does not show on screen (runtime/display-text.ts `hasUnseen`: zero-width,
 * bidi, format or control characters, tags, unusual spaces) gets neither a
 * grant nor a rule, whichever way the operator answers: what it keeps is then
 * text nobody read. A call held for a local file write, read or plugin run
 * (policy/file-write-hold.ts) gets no prefix grant shorter than its writing
 * command: such a grant would not allow the call (the grant gate holds it as
 * well), only allow other calls under a prefix the operator never saw named.
 */
import type { FileWriteHold, HeldAccess } from "../policy/file-write-hold.js";
import { hasUnseen } from "../runtime/display-text.js";
import type { ApprovalRecord } from "../state/approval-store.js";

/** Why nothing that lasts is offered or carried out for a call whose argv holds characters that do not show on screen. */
export const UNSEEN_ARGV_REASON =
  "the argv holds characters that do not show on screen (written above as \\u{…}: zero-width, bidi, format or control characters, variation selectors, tags or unusual spaces), and a grant or a rule would keep text you cannot read; allow it once, or deny it";

/** The part of a file-write hold the lasting answers depend on. */
export type PrefixHold = Pick<FileWriteHold, "minimumPrefix" | "access">;

/** What a call admits that outlasts it. The page's offer (page-offer.ts) is this plus its choices and minutes. */
export interface LastingAnswers {
  /** The call's canonical token count: an exact grant names every token. */
  readonly tokenCount: number;
  /** The prefix boundaries (token counts) a prefix grant may take, ascending; empty when none may. */
  readonly prefixCounts: readonly number[];
  /** Why no prefix grant is admitted, when `prefixCounts` is empty. */
  readonly noPrefixReason?: string;
  /** Why prefix grants start above one token (the call's hold), when they do. */
  readonly prefixFloorReason?: string;
  /** Why neither a grant nor a rule is admitted (only Deny and Allow once), when that is so. */
  readonly noLastingReason?: string;
}

/** What a held call does, in the words of an approval. */
const HELD_ACCESS_WORDS: Readonly<Record<HeldAccess, string>> = {
  write: "the call writes a local file",
  read: "the call reads a local file or directory (and may upload it)",
  plugin: "the call runs a plugin program from PATH (which may write local files)",
};

/** Why a call with these canonical tokens may get no grant and no rule, or undefined when it may. */
export function lastingAnswerRefusal(tokens: readonly string[]): string | undefined {
  return tokens.some(hasUnseen) ? UNSEEN_ARGV_REASON : undefined;
}

/**
 * The lasting answers a call admits: none for an argv holding characters that
 * do not show on screen; else an exact grant, and a prefix grant at any
 * boundary from the hold's minimum (one without a hold) to the whole argv.
 */
export function lastingAnswersOf(call: { readonly tokens: readonly string[]; readonly hold?: PrefixHold | undefined }): LastingAnswers {
  const tokenCount = call.tokens.length;
  const noLastingReason = lastingAnswerRefusal(call.tokens);
  if (noLastingReason !== undefined) return { tokenCount, prefixCounts: [], noPrefixReason: noLastingReason, noLastingReason };
  const first = Math.max(1, call.hold?.minimumPrefix ?? 1);
  const prefixCounts = Array.from({ length: Math.max(0, tokenCount - first + 1) }, (_, index) => first + index);
  const held = call.hold === undefined ? undefined : HELD_ACCESS_WORDS[call.hold.access];
  if (prefixCounts.length === 0) {
    const noPrefixReason =
      held === undefined || tokenCount === 0 ? "the call has no tokens to name" : `${held}, which only a grant naming its whole command allows`;
    return { tokenCount, prefixCounts, noPrefixReason };
  }
  if (held === undefined || first === 1) return { tokenCount, prefixCounts };
  return {
    tokenCount,
    prefixCounts,
    prefixFloorReason: `${held}, and a prefix grant of fewer tokens would not name its command, so it would not allow this call`,
  };
}

/** Why a grant of `mode` covering `tokenCount` tokens is not among what `lasting` admits, or undefined when it is. */
export function grantRefusal(lasting: LastingAnswers, grant: { readonly mode: "exact" | "prefix"; readonly tokenCount: number }): string | undefined {
  if (lasting.noLastingReason !== undefined) return `no grant for this call: ${lasting.noLastingReason}`;
  if (grant.mode === "exact") {
    return grant.tokenCount === lasting.tokenCount && lasting.tokenCount > 0
      ? undefined
      : `an exact grant names all ${lasting.tokenCount} tokens of the call, not ${grant.tokenCount}`;
  }
  if (lasting.prefixCounts.includes(grant.tokenCount)) return undefined;
  const first = lasting.prefixCounts[0];
  const last = lasting.prefixCounts.at(-1);
  if (first === undefined || last === undefined) return `no prefix grant for this call: ${lasting.noPrefixReason ?? "none fits it"}; an exact grant names it`;
  if (grant.tokenCount < first && lasting.prefixFloorReason !== undefined) {
    return `a prefix grant for this call covers at least ${first} of its ${lasting.tokenCount} tokens, not ${grant.tokenCount}: ${lasting.prefixFloorReason}`;
  }
  return `a prefix grant for this call covers ${first} to ${last} tokens, not ${grant.tokenCount}`;
}

/** The hold as a pending approval file keeps it (state/approval-store.ts), so the terminal reads what the server decided. */
export function recordedHold(hold: PrefixHold | undefined): Pick<ApprovalRecord, "hold"> {
  return hold === undefined ? {} : { hold: { minimum_prefix: hold.minimumPrefix, access: hold.access } };
}

/** The lasting answers a pending call approval admits, read from its file as the server wrote it. */
export function lastingAnswersOfRecord(record: ApprovalRecord): LastingAnswers {
  const hold = record.hold === undefined ? undefined : { minimumPrefix: record.hold.minimum_prefix, access: record.hold.access };
  return lastingAnswersOf({ tokens: record.argv, hold });
}
