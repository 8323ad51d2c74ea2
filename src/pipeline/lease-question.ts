/**
 * The lease question: a call to a target with no live lease, when a human may
 * be asked, waits for the operator to grant one (Replace or Add, for some
 * minutes) or refuse. Granting the lease does not allow the command: the call
 * goes on through the accept rule | grant | human approval step. The explicit
 * deny has been decided before this is asked, so a denied call never prompts.
 */
import type { TargetEntry } from "../config/registry.js";
import type { CallOutcome } from "./call-types.js";
import type { LeaseAnswer, LeaseRequest } from "./gates.js";
import { callScope, type ProviderCall } from "./provider-call.js";

/** Asks, audits the answer, and says whether the call may go on. */
export async function askForLease(
  call: ProviderCall,
  target: TargetEntry,
  canonicalTokens: readonly string[],
  askLease: (request: LeaseRequest) => Promise<LeaseAnswer>,
): Promise<{ readonly ok: true; readonly value: undefined } | { readonly ok: false; readonly outcome: CallOutcome }> {
  call.audit.record({ event: "target-access-requested", detail: target.name });
  const answer = await askLease({
    provider: call.provider,
    target,
    canonicalTokens,
    description: call.description,
    signal: call.signal,
  });
  if (answer.result === "allow") {
    const replaced = answer.mode === "replace" ? `; replaced: ${answer.replaced.length === 0 ? "none" : answer.replaced.join(", ")}` : "";
    call.audit.record({
      event: answer.mode === "add" ? "target-access-added" : "target-access-replaced",
      detail: `${answer.minutes}min${replaced}; ${answer.answeredBy}`,
    });
    return { ok: true, value: undefined };
  }
  call.audit.record({ event: "target-access-denied", source: answer.source, detail: answer.answeredBy ?? answer.source });
  const reason = `target ${target.name} is not active and the operator did not grant a lease (${answer.reason}); do not retry with another target`;
  return { ok: false, outcome: { ...callScope(call), decision: { result: "deny", source: answer.source, reason } } };
}
