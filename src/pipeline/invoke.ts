/**
 * The call pipeline: one function of named steps, in the order that is a
 * security property (docs/architecture.md, "The call pipeline"):
 *
 *   canonicalise argv            → locked option / forbidden value / unparseable: deny
 *   load rules (shared + target) → malformed file: deny (fail closed)
 *   explicit deny                → deny, no lease question
 *   lease for the target         → inactive: ask the operator for a lease (approval page, torii approvals), or deny (target-inactive) when headless
 *   (after that wait: the rules decide again)
 *   accept rule | grant | human  → none: ask the operator (approval page, torii approvals), or deny when headless
 *   (after that wait: the rules decide again; an explicit deny still wins)
 *   recheck lease ("before-env")
 *   load .env                    → only now, after the allow
 *   stores the .env moves        → an argument inside or above one: deny, before any lifecycle step
 *   session, identity            → validate, identity probe, STS
 *   stores the session moves     → the same check with the session layered in
 *   recheck lease ("after-auth")
 *   build child env, spawn argv  → holding the lease at launch
 *   stream output with cap and timeout, audit, structured result
 *
 * Nothing before the allow reads a `.env`, a credential or runs a command. The
 * envelope (argument shapes, the target alias) is validated by the MCP tool
 * before this function is called.
 */
import { auditRuleRef } from "../audit/rule-ref.js";
import type { Registry } from "../config/registry.js";
import type { Settings } from "../config/settings.js";
import { ConfigError } from "../config/errors.js";
import { trustPass, type ConfigTrust } from "../config/trusted-path.js";
import { decideCanonical, rejectionDecision } from "../policy/evaluate.js";
import { grammarFor } from "../policy/compile.js";
import { suggestGrants } from "../policy/grant-suggestion.js";
import { canonicalise } from "../policy/grammar/canonicalise.js";
import { flattenCanonical, type CanonicalArgv } from "../policy/grammar/types.js";
import type { PolicyDecision } from "../policy/types.js";
import { authenticate, type AuthDeps } from "./authenticate.js";
import type { CallDecision, CallOutcome } from "./call-types.js";
import type { Approver, GrantGate, LeaseGate } from "./gates.js";
import { askForLease } from "./lease-question.js";
import { runProgram, type ProgramDeps } from "./run-program.js";
import type { PolicyCache } from "./policy-cache.js";
import { callScope, type ProviderCall } from "./provider-call.js";
import { callPlaces } from "./credential-places.js";
import type { CredentialLayers } from "./child-plan.js";
import { movedStoreUse } from "./moved-stores.js";

export type { ProviderCall } from "./provider-call.js";

export interface InvokeDeps extends AuthDeps, ProgramDeps {
  readonly registry: Registry;
  readonly settings: Settings;
  readonly policies: PolicyCache;
  readonly leases: LeaseGate;
  readonly grants: GrantGate;
  readonly approver: Approver;
}

type Step<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly outcome: CallOutcome };

/**
 * What a step that may ask the operator returns: whether it waited for a human.
 * A human answers in seconds or hours (approval.timeout_seconds), and the rules
 * may change meanwhile: a decision taken before such a wait is taken again.
 */
interface AfterQuestion {
  readonly askedHuman: boolean;
}

function denied(call: ProviderCall, decision: Omit<CallDecision, "result">): CallOutcome {
  return { ...callScope(call), decision: { result: "deny", ...decision } };
}

/** Policy decisions carry a rule object; the wire format carries its text. */
function fromPolicy(decision: Exclude<PolicyDecision, { result: "unresolved" }>): Omit<CallDecision, "result"> {
  return "rule" in decision
    ? { source: decision.source, rule: decision.rule.text, reason: decision.reason }
    : { source: decision.source, reason: decision.reason };
}

/** A canonical argv and the agent arguments the grammar proves are read on another machine. */
interface Canonical {
  readonly argv: CanonicalArgv;
  readonly remote: ReadonlySet<number>;
}

function stepCanonicalise(call: ProviderCall, deps: InvokeDeps): Step<Canonical> {
  const result = canonicalise(call.args, grammarFor(call.provider.policyContext), "agent", callPlaces(call, deps));
  if (result.ok) {
    call.audit.setPositionals(result.canonical.positionals);
    return { ok: true, value: { argv: result.canonical, remote: new Set(result.remoteArguments) } };
  }
  const decision = rejectionDecision(result.rejection);
  // A refused argv leaves no token in the audit: only the kind and, for a locked option, the option the table names.
  const { rejection } = result;
  const named = rejection.kind === "locked-option" || rejection.kind === "locked-command";
  const detail = (named ? rejection.option : undefined) ?? `argument ${rejection.index}`;
  const event = rejection.kind === "locked-option" ? "denied-locked-option" : rejection.kind === "locked-command" ? "denied-locked-command" : "denied-argv";
  call.audit.record({ event, source: decision.source, detail });
  return { ok: false, outcome: denied(call, fromPolicy(decision)) };
}

function stepPolicy(call: ProviderCall, deps: InvokeDeps, canonical: CanonicalArgv, pass: ConfigTrust): Step<PolicyDecision> {
  let decision: PolicyDecision;
  try {
    const { policy, policyHash } = deps.policies.load(call.provider, call.target?.name, pass);
    call.audit.setPolicyHash(policyHash);
    decision = decideCanonical(policy, canonical);
  } catch (error) {
    // A missing or malformed rules file decides nothing: fail closed, and say where.
    const where = error instanceof ConfigError ? error.message : "the rules could not be read";
    call.audit.record({ event: "denied-policy-error", source: "policy-error", detail: error instanceof ConfigError ? error.file : "" });
    return { ok: false, outcome: denied(call, { source: "policy-error", reason: `the policy could not be loaded, so the call is denied: ${where}` }) };
  }
  if (decision.result !== "deny") return { ok: true, value: decision };
  const event = decision.source === "explicit-deny" ? "denied-explicit" : decision.source === "forbidden-arg" ? "denied-forbidden-arg" : "denied-policy-error";
  call.audit.record({ event, source: decision.source, ...("rule" in decision ? { rule: auditRuleRef(decision.rule, call.provider.dir) } : {}) });
  return { ok: false, outcome: denied(call, fromPolicy(decision)) };
}

/**
 * The `.env` layers may place a store elsewhere (AWS_SHARED_CREDENTIALS_FILE, KUBECONFIG, HOME):
 * an argument inside or above it is refused before the child starts. The reason names the variable,
 * never its value (a `.env` value stays out of messages and the audit).
 */
function stepMovedStores(call: ProviderCall, layers: CredentialLayers, remote: ReadonlySet<number>, deps: InvokeDeps): Step<undefined> {
  const use = movedStoreUse(call, layers, deps, remote);
  if (use === undefined) return { ok: true, value: undefined };
  call.audit.record({ event: "denied-argv", source: "forbidden-value", detail: `argument ${use.index}; ${use.variable}` });
  const reason = `argument ${use.index} points into or above the credential store that ${use.variable} names in the operator's environment for this call; Torii never lets a CLI read or write there`;
  return { ok: false, outcome: denied(call, { source: "forbidden-value", reason }) };
}

async function stepLease(
  call: ProviderCall,
  deps: InvokeDeps,
  checkpoint: "policy" | "before-env" | "after-auth",
  canonicalTokens: readonly string[] = [],
): Promise<Step<AfterQuestion>> {
  const noQuestion = { ok: true, value: { askedHuman: false } } as const;
  if (call.target === undefined) return noQuestion;
  const status = await deps.leases.check(call.provider, call.target, checkpoint);
  if (status.active) return noQuestion;
  const initial = checkpoint === "policy";
  if (initial && deps.approver.askLease !== undefined) {
    const answer = await askForLease(call, call.target, canonicalTokens, deps.approver.askLease.bind(deps.approver));
    return answer.ok ? { ok: true, value: { askedHuman: true } } : answer;
  }
  call.audit.record({ event: initial ? "denied-target-inactive" : "target-access-lost", detail: checkpoint });
  const reason = initial
    ? `target ${call.target.name} is not active (${status.reason}): the operator must grant a lease (torii target activate ${call.provider.tool} ${call.target.name}); do not retry with another target`
    : `the lease for target ${call.target.name} ended before the call could run (${checkpoint}: ${status.reason})`;
  return { ok: false, outcome: denied(call, { source: initial ? "target-inactive" : "target-access-lost", reason }) };
}

async function stepAllow(
  call: ProviderCall,
  deps: InvokeDeps,
  decision: PolicyDecision,
  canonical: CanonicalArgv,
): Promise<Step<AfterQuestion & { readonly decision: CallDecision }>> {
  if (decision.result === "accept") {
    call.audit.record({ event: "allowed-by-rules", source: "rules", rule: "rule" in decision ? auditRuleRef(decision.rule, call.provider.dir) : "" });
    return { ok: true, value: { askedHuman: false, decision: { result: "allow", ...fromPolicy(decision) } } };
  }
  const tokens = flattenCanonical(canonical);
  const hold = decision.result === "unresolved" ? decision.fileWrite : undefined;
  const minimumPrefix = hold?.minimumPrefix;
  // A file write is held for grants as for accept rules: only a grant that names the writing command allows it.
  const grant = await deps.grants.find(call.provider, call.target, tokens, minimumPrefix);
  if (grant !== undefined) {
    call.audit.record({ event: "allowed-by-grant", source: "grant", detail: grant.evidence });
    return { ok: true, value: { askedHuman: false, decision: { result: "allow", source: "grant", reason: `allowed by ${grant.evidence}` } } };
  }
  const grants = suggestGrants(call.provider.tool, call.target?.name, canonical, minimumPrefix);
  const answer = await deps.approver.ask({
    provider: call.provider,
    target: call.target,
    canonicalTokens: tokens,
    description: call.description,
    reason: decision.reason,
    grants,
    ...(hold === undefined ? {} : { hold }),
    signal: call.signal,
  });
  // The audit names the added rule by place and digest: its text is the call's argv, option values included.
  const addedRef =
    answer.addedRule === undefined
      ? undefined
      : auditRuleRef({ list: answer.addedRule.effect, origin: answer.addedRule.origin, text: answer.addedRule.rule }, call.provider.dir);
  if (answer.addedRule !== undefined) {
    const { effect } = answer.addedRule;
    call.audit.record({ event: effect === "accept" ? "policy-accept-added" : "policy-deny-added", rule: addedRef ?? "", detail: answer.answeredBy ?? "" });
  }
  if (answer.result === "allow") {
    if (answer.source === "rules") {
      call.audit.record({ event: "allowed-by-rules", source: "rules", rule: addedRef ?? "" });
      const byNewRule: CallDecision = {
        result: "allow",
        source: "rules",
        ...(answer.addedRule ? { rule: answer.addedRule.rule } : {}),
        reason: "allowed by a rule the operator just added",
      };
      return { ok: true, value: { askedHuman: true, decision: byNewRule } };
    }
    const detail = answer.grant === undefined ? answer.answeredBy : `${answer.answeredBy}; ${answer.grant}`;
    call.audit.record({ event: answer.source === "human-once" ? "override-once" : "override-timed", source: answer.source, detail });
    return { ok: true, value: { askedHuman: true, decision: { result: "allow", source: answer.source, reason: "allowed by the operator" } } };
  }
  const event = answer.source === "headless" ? "denied-headless" : answer.source;
  call.audit.record({ event, source: answer.source, ...(answer.answeredBy === undefined ? {} : { detail: answer.answeredBy }) });
  return { ok: false, outcome: denied(call, { source: answer.source, reason: answer.reason, grants }) };
}

/** Runs one provider call through the whole pipeline. Never throws for a policy outcome. */
export async function invoke(call: ProviderCall, deps: InvokeDeps): Promise<CallOutcome> {
  call.audit.record({ event: "invoke" });

  const canonical = stepCanonicalise(call, deps);
  if (!canonical.ok) return canonical.outcome;

  // One trust pass for the call's reads (rules, then the .env layers), so a directory they share is walked once;
  // a wait for a human ends it: what is read after the wait is walked afresh.
  let pass = trustPass(call.provider.trust);
  const policy = stepPolicy(call, deps, canonical.value.argv, pass);
  if (!policy.ok) return policy.outcome;

  const lease = await stepLease(call, deps, "policy", flattenCanonical(canonical.value.argv));
  if (!lease.ok) return lease.outcome;

  // The lease question waited for a human: what the rules say now decides, not what they said before.
  if (lease.value.askedHuman) pass = trustPass(call.provider.trust);
  const decision = lease.value.askedHuman ? stepPolicy(call, deps, canonical.value.argv, pass) : policy;
  if (!decision.ok) return decision.outcome;

  const allowed = await stepAllow(call, deps, decision.value, canonical.value.argv);
  if (!allowed.ok) return allowed.outcome;

  // So did an approval: an explicit deny added (or a rules file broken) while the operator answered still wins.
  if (allowed.value.askedHuman) {
    pass = trustPass(call.provider.trust);
    const again = stepPolicy(call, deps, canonical.value.argv, pass);
    if (!again.ok) return again.outcome;
  }

  const beforeEnv = await stepLease(call, deps, "before-env");
  if (!beforeEnv.ok) return beforeEnv.outcome;

  // Only now, after the allow, may credentials and .env files be read. A store the .env layers move is
  // refused as soon as they are read, before the lifecycle (validate, identity probe, STS) runs for the call.
  let screened: CallOutcome | undefined;
  const screen = (layers: CredentialLayers): boolean => {
    const early = stepMovedStores(call, layers, canonical.value.remote, deps);
    if (!early.ok) screened = early.outcome;
    return !early.ok;
  };
  const auth = await authenticate({ provider: call.provider, target: call.target, audit: call.audit, signal: call.signal, trust: pass, screen }, deps);
  if (!auth.ok) {
    const { failure } = auth;
    if (failure.kind === "screened" && screened !== undefined) return screened;
    // The call's closing record: an allowed call that ends here runs nothing (no `ran`, no `launch-failed`).
    if (failure.kind === "error") call.audit.record({ event: "auth-failed", detail: failure.canceled === true ? "canceled" : "error" });
    return failure.kind === "deny"
      ? denied(call, { source: failure.source, reason: failure.reason })
      : { ...callScope(call), decision: allowed.value.decision, error: failure.kind === "error" ? failure.message : "the call was refused" };
  }

  // Again with the stored session layered in (it may move a store too).
  const moved = stepMovedStores(call, auth.env, canonical.value.remote, deps);
  if (!moved.ok) return moved.outcome;

  const afterAuth = await stepLease(call, deps, "after-auth");
  if (!afterAuth.ok) return afterAuth.outcome;

  return runProgram(
    { call, decision: allowed.value.decision, canonicalTokens: flattenCanonical(canonical.value.argv), credentials: auth.env, redactor: auth.redactor },
    deps,
  );
}
