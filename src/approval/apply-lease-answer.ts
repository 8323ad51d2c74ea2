/**
 * Carries out the operator's answer to a lease question: Replace or Add
 * activates the lease through the lease store with the same call
 * `torii target activate` makes (LeaseStore.activate on the target's current
 * binding), so there is one way a lease comes to exist. An answer that is not
 * a lease choice, or an activation that fails, grants nothing.
 *
 * The activation is a compare-and-swap on the lease file's revision as the
 * question read it (`leaseSnapshot`, kept in the pending file). Any lease
 * write in between refuses it: a `torii target clear` the server sees only
 * when it carries the answer out may have come after the operator answered,
 * and activating then would undo that revocation; and an Add would keep
 * targets the page never listed.
 */
import type { LeaseAnswer, LeaseRequest } from "../pipeline/gates.js";
import type { ApprovalAnswerRecord, ApprovalRecord } from "../state/approval-store.js";
import { StaleRevisionError } from "../state/errors.js";
import { LeaseStore, LeaseWrittenError, liveAuthorizations } from "../state/lease-store.js";
import { leaseBindingOf } from "../state/lease-status.js";
import { answeredBy } from "./apply-answer.js";

/** The provider's leases live now (target and expiry), for the page and `torii approvals list`, and the revision they were read at (none when the file is invalid). */
export function leaseSnapshot(request: Pick<LeaseRequest, "provider">, now: Date): { active: { target: string; expires_at: string }[]; revision?: number } {
  const read = new LeaseStore(request.provider.dir).read();
  if (!read.ok) return { active: [] };
  return { active: liveAuthorizations(read.state, now).map(({ target, expires_at }) => ({ target, expires_at })), revision: read.state.revision };
}

/** Activates the lease `answer` asks for, if the leases are still as the question read them, and says what the pipeline should do. */
export async function applyLeaseAnswer(answer: ApprovalAnswerRecord, request: LeaseRequest, record: ApprovalRecord): Promise<LeaseAnswer> {
  const by = answeredBy(answer);
  const deny = (reason: string): LeaseAnswer => ({ result: "deny", source: "human-deny", reason, answeredBy: by });
  if (answer.choice !== "lease-replace" && answer.choice !== "lease-add") {
    return deny(answer.choice === "deny" ? "the operator denied the lease" : `the answer ${answer.choice} does not apply to a lease request`);
  }
  const revision = record.lease?.revision;
  if (revision === undefined) return deny("the lease could not be activated: the lease file could not be read when the operator was asked");
  const mode = answer.choice === "lease-add" ? "add" : "replace";
  const minutes = answer.minutes ?? record.lease?.minutes ?? 0;
  try {
    const { replaced } = await new LeaseStore(request.provider.dir).activate(
      request.target.name,
      leaseBindingOf(request.provider.name, request.target),
      minutes,
      mode,
      revision,
    );
    return { result: "allow", mode, minutes, replaced, answeredBy: by };
  } catch (error) {
    // Written and in force, then a later step failed: the lease exists, so it is reported (and audited) as granted, with what failed.
    if (error instanceof LeaseWrittenError) {
      return { result: "allow", mode, minutes, replaced: error.activation.replaced, answeredBy: `${by}; in force, but ${error.problem}` };
    }
    if (error instanceof StaleRevisionError) {
      return deny(
        `the leases of ${request.provider.tool} changed while this request waited (torii target activate or clear, or another answer), so they are not the ones the operator was shown, and a clear may have come after the answer; nothing was activated: make the call again to ask afresh`,
      );
    }
    return deny(`the lease could not be activated (${error instanceof Error ? error.message : String(error)})`);
  }
}
