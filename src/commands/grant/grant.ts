/**
 * `torii grant add|list|revoke|clear <tool> [target] …`: timed grants that let
 * an argv the rules leave unresolved run without asking a human.
 *
 * A grant is stored as a fingerprint of canonical tokens, so `grant add`
 * canonicalises the operator's argv with the provider's grammar exactly as the
 * server does for the agent's: an argv the server would refuse (a locked
 * option, a forbidden value, an unparseable spelling) cannot be granted.
 *
 * The grant must also be one the server would use for that argv, judged by the
 * same decision the approval page and `torii approvals approve` ask
 * (approval/lasting-answers.ts): nothing for an argv the rules deny (the deny
 * comes before any grant) or one holding characters that do not show on
 * screen, and no prefix grant shorter than the command of a call held for a
 * local file write, read or plugin run (the server ignores such a grant for it).
 *
 * Grants live in `<provider>/grants` for a provider without targets and in
 * `<target>/grants` for a target: the server looks only in the file of the
 * call's scope, so a grant for one target never allows a call to another.
 *
 * `revoke` and `clear` also supersede, under the grants file's lock, the grant
 * answers of their scope a waiting server has not written yet
 * (ApprovalStore.supersedeGrants): the server sees an answer only when it
 * carries it out, which may be after the revocation, and must not undo it.
 */
import { grantRefusal, lastingAnswersOf } from "../../approval/lasting-answers.js";
import type { ProviderEntry } from "../../config/registry.js";
import { loadSettings } from "../../config/settings.js";
import { processPlaces } from "../../pipeline/credential-places.js";
import { PolicyCache } from "../../pipeline/policy-cache.js";
import { grammarFor } from "../../policy/compile.js";
import { decideCanonical } from "../../policy/evaluate.js";
import { canonicalise } from "../../policy/grammar/canonicalise.js";
import { flattenCanonical, type CanonicalArgv } from "../../policy/grammar/types.js";
import { grantEvidence } from "../../state/fingerprints.js";
import { ApprovalStore } from "../../state/approval-store.js";
import { evidenceMatcher, grantsFileOf, GrantStore, type GrantEntry } from "../../state/grant-store.js";
import { auditScope, operatorAudit } from "../shared/operator-audit.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { emit, expiryText, parseMinutes, parseWholeNumber, remainingMinutes, type JsonOption } from "../shared/operator-output.js";
import { findProvider, findTarget, loadOperatorRegistry } from "../shared/selection.js";
import { changeState, EXIT_STATE_PROBLEM, stateProblem, stateProblemText } from "../shared/state-errors.js";

/** Where a grant applies: a provider without targets, or one target. */
interface GrantScope {
  readonly provider: ProviderEntry;
  readonly target: string | undefined;
  /** `tool` or `tool target`, as typed. */
  readonly label: string;
  readonly file: string;
}

function grantScope(tool: string, target: string | undefined): GrantScope {
  const provider = findProvider(loadOperatorRegistry(), tool);
  if (target === undefined) {
    return { provider, target, label: tool, file: grantsFileOf(provider, undefined) };
  }
  if (!provider.targetAware) throw new OperatorError(`${tool} takes no target, so its grants are provider-wide: leave out ${JSON.stringify(target)}`);
  const entry = findTarget(provider, target);
  return { provider, target, label: `${tool} ${target}`, file: grantsFileOf(provider, entry) };
}

/** The audit scope of a grant: `tool` or `tool/target`, as the server writes it. */
function grantAuditScope(scope: GrantScope): string {
  return auditScope(scope.provider.tool, scope.target);
}

function scopeJson(scope: GrantScope): { tool: string; target: string | null; file: string } {
  return { tool: scope.provider.tool, target: scope.target ?? null, file: scope.file };
}

/**
 * Marks `superseded` the answered grants of `scope` a waiting server has not written yet (those `affected` takes);
 * run under the grants file's lock, where the server writes them. Returns their ids.
 */
function supersedePending(scope: GrantScope, by: string, affected?: Parameters<ApprovalStore["supersedeGrants"]>[2]): Promise<string[]> {
  return new ApprovalStore(configRoot()).supersedeGrants({ tool: scope.provider.tool, target: scope.target }, by, affected);
}

/** The audit detail's note on superseded answers (nothing when there were none). */
function supersededNote(ids: readonly string[]): string {
  return ids.length === 0 ? "" : `; superseded ${ids.length} answered grant(s) not yet written (approval ${ids.join(", ")})`;
}

function grantJson(entry: GrantEntry, now: Date) {
  return {
    evidence: grantEvidence(entry.matcher),
    mode: entry.matcher.mode,
    token_count: entry.matcher.token_count,
    expires_at: entry.expires_at,
    remaining_minutes: remainingMinutes(entry.expires_at, now),
  };
}

export interface GrantAddOptions extends JsonOption {
  readonly exact?: boolean;
  readonly prefix?: string;
  readonly for?: string;
}

/**
 * Throws when the server would never use this grant for the argv it was given
 * for: the rules in force deny the argv, or the lasting answers it admits
 * (the page's and the terminal's) do not include the grant. A policy that cannot
 * be loaded is reported as the server would deny the call.
 */
function refuseUnusableGrant(scope: GrantScope, canonical: CanonicalArgv, grant: { readonly mode: "exact" | "prefix"; readonly tokenCount: number }): void {
  const decision = decideCanonical(new PolicyCache().load(scope.provider, scope.target).policy, canonical);
  if (decision.result === "deny") {
    throw new OperatorError(`refused: ${decision.reason}; the server denies this call before it looks at grants, so no grant can allow it`);
  }
  const hold = decision.result === "unresolved" ? decision.fileWrite : undefined;
  const refusal = grantRefusal(lastingAnswersOf({ tokens: flattenCanonical(canonical), hold }), grant);
  if (refusal !== undefined) throw new OperatorError(`refused: ${refusal}; nothing was written`);
}

export async function runGrantAdd(tool: string, target: string | undefined, options: GrantAddOptions, args: readonly string[] | undefined): Promise<number> {
  if ((options.exact === true) === (options.prefix !== undefined)) {
    throw new OperatorError("give exactly one of --exact and --prefix N");
  }
  if (args === undefined || args.length === 0) {
    throw new OperatorError("usage: torii grant add <tool> [target] (--exact | --prefix N) -- <args…> (the arguments go after --)");
  }
  const scope = grantScope(tool, target);
  if (scope.target === undefined && scope.provider.targetAware) {
    const known = [...scope.provider.targets.keys()].sort().join(", ") || "none configured";
    throw new OperatorError(`every call to ${tool} names a target, so its grants are per target: torii grant add ${tool} <target> … (targets: ${known})`);
  }
  const root = configRoot();
  const minutes = parseMinutes(options.for, loadSettings(root).defaultGrantMinutes);
  const kubeconfig = scope.target === undefined ? undefined : scope.provider.targets.get(scope.target)?.config.kubeconfig;
  const canonical = canonicalise(args, grammarFor(scope.provider.policyContext), "agent", processPlaces(scope.provider.trust.root, kubeconfig));
  if (!canonical.ok) {
    const { rejection } = canonical;
    throw new OperatorError(`refused: ${rejection.reason} (${rejection.kind}, argument ${rejection.index + 1}); no grant can allow this argv`);
  }
  const all = flattenCanonical(canonical.canonical);
  const mode = options.prefix === undefined ? "exact" : "prefix";
  const count = options.prefix === undefined ? all.length : parseWholeNumber(options.prefix, "--prefix", 1, all.length);
  refuseUnusableGrant(scope, canonical.canonical, { mode, tokenCount: count });
  const tokens = all.slice(0, count);
  const store = new GrantStore(scope.file);
  const entry = await changeState(`add a grant to ${scope.file}`, `torii grant clear ${scope.label} keeps a copy of it and removes every grant`, () =>
    store.add(mode, tokens, minutes),
  );
  const now = new Date();
  const evidence = grantEvidence(entry.matcher);
  await operatorAudit(root).record({ event: "grant-added", scope: grantAuditScope(scope), detail: `${evidence}; ${minutes}min`, argv: tokens });
  const lines = [
    `granted ${scope.label} (${mode}, ${tokens.length} canonical token(s)) for ${minutes} min, ${expiryText(entry.expires_at, now)}`,
    `  tokens: ${tokens.map((token) => JSON.stringify(token)).join(" ")}${mode === "prefix" ? " …" : ""}`,
    `  evidence: ${evidence}`,
    `  file: ${scope.file}`,
  ];
  emit(
    options,
    { action: "grant-added", ...scopeJson(scope), mode, tokens, token_count: tokens.length, evidence, minutes, expires_at: entry.expires_at },
    lines,
  );
  return 0;
}

export function runGrantList(tool: string, target: string | undefined, options: JsonOption): number {
  const scope = grantScope(tool, target);
  const listed = new GrantStore(scope.file).list();
  if (!listed.ok) {
    const lines = [
      `${scope.label} grants: ${stateProblemText(listed.error)}`,
      `it allows nothing while it is invalid; torii grant clear ${scope.label} keeps a copy and starts afresh`,
    ];
    emit(options, { ...scopeJson(scope), error: stateProblem(listed.error) }, lines);
    return EXIT_STATE_PROBLEM;
  }
  const now = new Date();
  const grants = listed.entries.map((entry) => grantJson(entry, now));
  const lines = [
    `${scope.label} grants: ${scope.file}`,
    ...(grants.length === 0
      ? ["no live grant"]
      : grants.map((grant) => `  ${grant.evidence}  ${grant.mode}, ${grant.token_count} token(s)  ${expiryText(grant.expires_at, now)}`)),
  ];
  emit(options, { ...scopeJson(scope), grants }, lines);
  return 0;
}

/** The evidence `grant add` and `grant list` print; a longer digest prefix (up to the whole SHA-256) also names a grant. */
const EVIDENCE = /^grant:(?:exact|prefix):[1-9][0-9]{0,8}:[0-9a-f]{8,64}$/;

export async function runGrantRevoke(tool: string, target: string | undefined, evidence: string | undefined, options: JsonOption): Promise<number> {
  if (evidence === undefined) throw new OperatorError("usage: torii grant revoke <tool> [target] <evidence> (see torii grant list)");
  if (!EVIDENCE.test(evidence)) {
    throw new OperatorError(
      `${JSON.stringify(evidence)} is not a grant's evidence (grant:<exact|prefix>:<count>:<8 or more hex>, as printed by torii grant list)`,
    );
  }
  const scope = grantScope(tool, target);
  const store = new GrantStore(scope.file);
  let superseded: string[] = [];
  const removed = await changeState(`revoke a grant in ${scope.file}`, `torii grant clear ${scope.label} keeps a copy of it and removes every grant`, () =>
    store.revoke(evidence, async () => {
      superseded = await supersedePending(scope, `torii grant revoke ${evidence}`, evidenceMatcher(evidence));
    }),
  );
  if (removed === 0 && superseded.length === 0) {
    throw new OperatorError(`${scope.label} has no grant ${evidence} (torii grant list ${scope.label} shows the live ones)`);
  }
  await operatorAudit().record({ event: "grant-revoked", scope: grantAuditScope(scope), detail: `${evidence}${supersededNote(superseded)}` });
  const lines = [`revoked ${removed} grant(s) ${evidence} of ${scope.label}`];
  if (superseded.length > 0)
    lines.push(`superseded ${superseded.length} answered grant(s) the server had not written yet (approval ${superseded.join(", ")}); those calls are denied`);
  emit(options, { action: "grant-revoked", ...scopeJson(scope), evidence, removed, superseded }, lines);
  return 0;
}

export async function runGrantClear(tool: string, target: string | undefined, options: JsonOption): Promise<number> {
  const scope = grantScope(tool, target);
  const store = new GrantStore(scope.file);
  let superseded: string[] = [];
  const { removed, preservedInvalid } = await changeState(`clear ${scope.file}`, "", () =>
    store.clear(async () => {
      superseded = await supersedePending(scope, "torii grant clear");
    }),
  );
  const preservedNote = preservedInvalid === undefined ? "" : "; preserved invalid file";
  await operatorAudit().record({
    event: "grants-cleared",
    scope: grantAuditScope(scope),
    detail: `removed ${removed} grant(s)${preservedNote}${supersededNote(superseded)}`,
  });
  const lines = [removed === 0 ? `${scope.label} had no grant` : `removed ${removed} grant(s) of ${scope.label}`];
  if (preservedInvalid !== undefined) lines.push(`the invalid grants file was replaced; a copy is kept at ${preservedInvalid}`);
  if (superseded.length > 0)
    lines.push(`superseded ${superseded.length} answered grant(s) the server had not written yet (approval ${superseded.join(", ")}); those calls are denied`);
  emit(options, { action: "grants-cleared", ...scopeJson(scope), removed, preserved_invalid: preservedInvalid ?? null, superseded }, lines);
  return 0;
}
