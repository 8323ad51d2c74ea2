/**
 * Carries out the operator's answer to a lease question: Replace or Add
 * activates the lease through the lease store with the same call
 * `torii target activate` makes (LeaseStore.activate on the target's current
 * binding), so there is one way a lease comes to exist. An answer that is not
 * a lease choice, or an activation that fails, grants nothing.
 */
import type { LeaseAnswer, LeaseRequest } from "../pipeline/gates.js";
import type { ApprovalAnswerRecord, ApprovalRecord } from "../state/approval-store.js";
import { LeaseStore, liveAuthorizations } from "../state/lease-store.js";
import { leaseBindingOf } from "../state/lease-status.js";
import { answeredBy } from "./apply-answer.js";

/** The leases of the request's provider that are live now (target and expiry), for the page and `torii approvals list`. */
export function activeLeases(request: Pick<LeaseRequest, "provider">, now: Date): { target: string; expires_at: string }[] {
  const read = new LeaseStore(request.provider.dir).read();
  if (!read.ok) return [];
  return liveAuthorizations(read.state, now).map(({ target, expires_at }) => ({ target, expires_at }));
}

/** Activates the lease `answer` asks for and says what the pipeline should do. */
export async function applyLeaseAnswer(answer: ApprovalAnswerRecord, request: LeaseRequest, record: ApprovalRecord): Promise<LeaseAnswer> {
  const by = answeredBy(answer);
  if (answer.choice !== "lease-replace" && answer.choice !== "lease-add") {
    const reason = answer.choice === "deny" ? "the operator denied the lease" : `the answer ${answer.choice} does not apply to a lease request`;
    return { result: "deny", source: "human-deny", reason, answeredBy: by };
  }
  const mode = answer.choice === "lease-add" ? "add" : "replace";
  const minutes = answer.minutes ?? record.lease?.minutes ?? 0;
  try {
    const { replaced } = await new LeaseStore(request.provider.dir).activate(
      request.target.name,
      leaseBindingOf(request.provider.name, request.target),
      minutes,
      mode,
    );
    return { result: "allow", mode, minutes, replaced, answeredBy: by };
  } catch (error) {
    const reason = `the lease could not be activated (${error instanceof Error ? error.message : String(error)})`;
    return { result: "deny", source: "human-deny", reason, answeredBy: by };
  }
}
