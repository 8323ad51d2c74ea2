/**
 * Whether a call may be answered with something that outlasts it: a grant or
 * an Always allow / Always deny rule. A call whose canonical tokens hold a
 * character that does not show on screen (runtime/display-text.ts `hasUnseen`:
 * zero-width, bidi, format or control characters, tags, unusual spaces) gets
 * neither, whichever way the operator answers: what a grant or a rule keeps
 * is then text nobody read. The approval page (page-offer.ts), its rule editor
 * (rule-offers.ts), the terminal (`torii approvals approve`) and the server that
 * carries out a recorded answer (apply-answer.ts) all ask this one function,
 * so no front door grants what another refuses.
 */
import { hasUnseen } from "../runtime/display-text.js";

/** Why nothing that lasts is offered or carried out for a call whose argv holds characters that do not show on screen. */
export const UNSEEN_ARGV_REASON =
  "the argv holds characters that do not show on screen (written above as \\u{…}: zero-width, bidi, format or control characters, variation selectors, tags or unusual spaces), and a grant or a rule would keep text you cannot read; allow it once, or deny it";

/** Why a call with these canonical tokens may get no grant and no rule, or undefined when it may. */
export function lastingAnswerRefusal(tokens: readonly string[]): string | undefined {
  return tokens.some(hasUnseen) ? UNSEEN_ARGV_REASON : undefined;
}
