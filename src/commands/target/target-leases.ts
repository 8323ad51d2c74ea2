/**
 * The target commands that read or change leases:
 * `torii target list|show|status|activate|clear|remove`.
 *
 * A lease is for a binding: the digest of the target's configuration as the
 * registry loads it and of the `target.yaml` file it came from (the same inputs
 * the server's lease gate uses), so a lease taken before `target.yaml` was
 * edited or recreated is shown as stale and allows nothing.
 */
import { rmSync } from "node:fs";
import type { ProviderEntry, TargetEntry } from "../../config/registry.js";
import { loadSettings } from "../../config/settings.js";
import { leaseBindingOf, leaseStatusOf } from "../../state/lease-status.js";
import { LeaseClearWrittenError, LeaseStore, LeaseWrittenError, liveAuthorizations, type LeaseAuthorization, type LeaseRead } from "../../state/lease-store.js";
import { StateWrittenError } from "../../state/errors.js";
import { auditScope, operatorAudit } from "../shared/operator-audit.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { emit, expiryText, parseMinutes, remainingMinutes, type JsonOption } from "../shared/operator-output.js";
import { findTarget, findTargetAwareProvider, loadOperatorProvider, loadOperatorRegistry } from "../shared/selection.js";
import { changeState, EXIT_STATE_PROBLEM, stateProblem, stateProblemText } from "../shared/state-errors.js";
import { describeConfig } from "./target-lines.js";

/** How one configured target stands with the lease file. */
interface TargetLease {
  readonly name: string;
  readonly active: boolean;
  readonly expires_at: string | null;
  readonly remaining_minutes: number | null;
  /** A live lease exists, but for an earlier `target.yaml`: it allows nothing. */
  readonly stale: boolean;
}

function leaseOf(provider: ProviderEntry, target: TargetEntry, read: LeaseRead, now: Date): TargetLease {
  const status = read.ok ? leaseStatusOf(read.state, target.name, leaseBindingOf(provider.name, target), now) : { kind: "none" as const };
  if (status.kind !== "active") return { name: target.name, active: false, expires_at: null, remaining_minutes: null, stale: status.kind === "stale" };
  return { name: target.name, active: true, expires_at: status.expires_at, remaining_minutes: remainingMinutes(status.expires_at, now), stale: false };
}

function leaseText(lease: TargetLease, now: Date): string {
  if (lease.active && lease.expires_at !== null) return `active ${expiryText(lease.expires_at, now)}`;
  return lease.stale ? "inactive (its lease is for an earlier target.yaml; activate it again)" : "inactive";
}

function invalidLeaseLines(tool: string, read: LeaseRead): string[] {
  if (read.ok) return [];
  return [
    `lease file: ${stateProblemText(read.error)}`,
    `no target of ${tool} is active while it is invalid; torii target clear ${tool} keeps a copy and starts afresh`,
  ];
}

export function runTargetList(tool: string, options: JsonOption): number {
  const provider = findTargetAwareProvider(loadOperatorRegistry(), tool);
  const read = new LeaseStore(provider.dir).read();
  const now = new Date();
  const targets = [...provider.targets.values()].map((target) => leaseOf(provider, target, read, now));
  const width = Math.max(0, ...targets.map((target) => target.name.length));
  const lines = [
    `${tool} (${String(provider.config.targeting?.mode)}): ${targets.length} target(s)`,
    ...targets.map((target) => `  ${target.name.padEnd(width)}  ${leaseText(target, now)}`),
    ...invalidLeaseLines(tool, read),
  ];
  emit(options, { tool, provider: provider.name, targets, ...(read.ok ? {} : { lease_error: stateProblem(read.error) }) }, lines);
  return read.ok ? 0 : EXIT_STATE_PROBLEM;
}

export function runTargetShow(tool: string, alias: string, options: JsonOption): number {
  const provider = findTargetAwareProvider(loadOperatorRegistry(), tool);
  const target = findTarget(provider, alias);
  const read = new LeaseStore(provider.dir).read();
  const now = new Date();
  const lease = leaseOf(provider, target, read, now);
  const lines = [
    `${tool} target ${alias}: ${target.file}`,
    ...describeConfig(target.config).map((line) => `  ${line}`),
    `  rules: ${target.hasOwnRules ? `${target.rulesPath} (its accept rules replace the shared ones)` : "the shared rules.yaml (no rules.yaml of its own)"}`,
    `  lease: ${leaseText(lease, now)}`,
    ...invalidLeaseLines(tool, read),
  ];
  const json = {
    tool,
    provider: provider.name,
    target: alias,
    file: target.file,
    config: target.config,
    rules: target.hasOwnRules ? target.rulesPath : null,
    lease: { active: lease.active, expires_at: lease.expires_at, remaining_minutes: lease.remaining_minutes, stale: lease.stale },
    ...(read.ok ? {} : { lease_error: stateProblem(read.error) }),
  };
  emit(options, json, lines);
  return read.ok ? 0 : EXIT_STATE_PROBLEM;
}

export function runTargetStatus(tool: string, options: JsonOption): number {
  const provider = findTargetAwareProvider(loadOperatorRegistry(), tool);
  const store = new LeaseStore(provider.dir);
  const file = store.file;
  const read = store.read();
  if (!read.ok) {
    emit(options, { tool, provider: provider.name, file, error: stateProblem(read.error) }, [`${tool} leases: ${file}`, ...invalidLeaseLines(tool, read)]);
    return EXIT_STATE_PROBLEM;
  }
  const now = new Date();
  const live = liveAuthorizations(read.state, now);
  const leases = live.map((entry) => statusOf(provider, entry, now));
  const lines = [
    `${tool} leases: ${file}`,
    `revision: ${read.state.revision}`,
    ...(leases.length === 0
      ? ["no active lease"]
      : leases.map((lease) => `  ${lease.target}  ${expiryText(lease.expires_at, now)}${lease.note === undefined ? "" : `  [${lease.note}]`}`)),
  ];
  const json = {
    tool,
    provider: provider.name,
    file,
    revision: read.state.revision,
    leases,
  };
  emit(options, json, lines);
  return 0;
}

function statusOf(provider: ProviderEntry, entry: LeaseAuthorization, now: Date) {
  const target = provider.targets.get(entry.target);
  const current = target !== undefined && leaseBindingOf(provider.name, target) === entry.binding;
  const note = target === undefined ? "no such target is configured: it allows nothing" : current ? undefined : "for an earlier target.yaml: it allows nothing";
  return {
    target: entry.target,
    expires_at: entry.expires_at,
    remaining_minutes: remainingMinutes(entry.expires_at, now),
    configured: target !== undefined,
    current,
    ...(note === undefined ? {} : { note }),
  };
}

export interface TargetActivateOptions extends JsonOption {
  readonly for?: string;
  readonly add?: boolean;
}

export async function runTargetActivate(tool: string, alias: string, options: TargetActivateOptions): Promise<number> {
  const root = configRoot();
  // The hot command: only the provider and its identity providers are read (the lease binding is computed as the server does).
  const provider = findTargetAwareProvider(loadOperatorProvider(tool), tool);
  const target = findTarget(provider, alias);
  const minutes = parseMinutes(options.for, loadSettings(root).defaultTargetMinutes);
  const mode = options.add === true ? "add" : "replace";
  const store = new LeaseStore(provider.dir);
  const record = (replaced: readonly string[], after: string): Promise<void> =>
    operatorAudit(root).record(
      mode === "add"
        ? { event: "target-access-added", scope: auditScope(tool, alias), detail: `${minutes}min${after}` }
        : {
            event: "target-access-replaced",
            scope: auditScope(tool, alias),
            detail: `${minutes}min; replaced: ${replaced.length === 0 ? "none" : replaced.join(", ")}${after}`,
          },
    );
  const { state, replaced } = await changeState(`activate ${tool} ${alias}`, `torii target clear ${tool} keeps a copy of it and revokes every lease`, () =>
    auditedInForce(
      () => store.activate(alias, leaseBindingOf(provider.name, target), minutes, mode),
      (error) => (error instanceof LeaseWrittenError ? error : undefined),
      (error, after) => record(error.activation.replaced, after),
      { action: `activate ${tool} ${alias}`, audited: "the activation is audited; check the state before retrying" },
    ),
  );
  await record(replaced, "");
  const now = new Date();
  const mine = state.authorizations.find((entry) => entry.target === alias);
  const expiresAt = mine?.expires_at ?? "";
  const others = liveAuthorizations(state, now)
    .filter((entry) => entry.target !== alias)
    .map((entry) => entry.target);
  const lines = [`activated ${tool} target ${alias} for ${minutes} min, ${expiryText(expiresAt, now)}`];
  if (replaced.length > 0) lines.push(`replaced: ${replaced.join(", ")} (no longer active)`);
  else if (mode === "replace") lines.push("no other lease was active");
  if (others.length > 0) lines.push(`still active: ${others.join(", ")}`, `warning: ${others.length + 1} targets of ${tool} are active at once`);
  emit(
    options,
    {
      action: "target-activated",
      tool,
      provider: provider.name,
      target: alias,
      mode,
      minutes,
      expires_at: expiresAt,
      replaced,
      active: [alias, ...others],
      revision: state.revision,
    },
    lines,
  );
  return 0;
}

export async function runTargetClear(tool: string, options: JsonOption): Promise<number> {
  const provider = findTargetAwareProvider(loadOperatorRegistry(), tool);
  const store = new LeaseStore(provider.dir);
  const record = (clearing: { cleared: readonly string[]; preservedInvalid?: string | undefined }, after: string): Promise<void> =>
    operatorAudit().record({
      event: "target-access-cleared",
      scope: auditScope(tool),
      detail: `cleared ${clearing.cleared.length} lease(s)${clearing.preservedInvalid === undefined ? "" : "; preserved invalid file"}${after}`,
    });
  const { state, cleared, preservedInvalid } = await changeState(`clear the leases of ${tool}`, "", () =>
    auditedInForce(
      () => store.clear(),
      (error) => (error instanceof LeaseClearWrittenError ? error : undefined),
      (error, after) => record(error.clearing, after),
      {
        action: `clear the leases of ${tool}`,
        audited: "the clear is audited; check the state before retrying",
        unaudited: "the leases are revoked and the clear is NOT audited",
      },
    ),
  );
  await record({ cleared, preservedInvalid }, "");
  const lines = [cleared.length === 0 ? `no lease of ${tool} was active` : `revoked ${cleared.length} lease(s) of ${tool}: ${cleared.join(", ")}`];
  if (preservedInvalid !== undefined) lines.push(`the invalid lease file was replaced; a copy is kept at ${preservedInvalid}`);
  lines.push(`targets are kept (${provider.targets.size}); torii target remove deletes one`);
  emit(
    options,
    { action: "target-leases-cleared", tool, provider: provider.name, cleared, revision: state.revision, preserved_invalid: preservedInvalid ?? null },
    lines,
  );
  return 0;
}

export interface TargetRemoveOptions extends JsonOption {
  readonly force?: boolean;
}

export async function runTargetRemove(tool: string, alias: string, options: TargetRemoveOptions): Promise<number> {
  const provider = findTargetAwareProvider(loadOperatorRegistry(), tool);
  const target = findTarget(provider, alias);
  if (options.force !== true) {
    throw new OperatorError(
      `refusing to remove ${tool} target ${alias} without --force: it deletes ${target.dir} with its target.yaml, rules.yaml, .env and grants`,
    );
  }
  const store = new LeaseStore(provider.dir);
  const before = store.read();
  const hadLease = before.ok && liveAuthorizations(before.state, new Date()).some((entry) => entry.target === alias);
  const audit = operatorAudit();
  const recordRevoked = (after: string): Promise<void> =>
    audit.record({ event: "target-access-revoked", scope: auditScope(tool, alias), detail: `target remove${after}` });
  await changeState(`revoke the lease of ${tool} ${alias}`, `torii target clear ${tool} keeps a copy of it and revokes every lease`, () =>
    auditedInForce(
      () => store.revoke(alias),
      // Without a lease before, the revoke wrote nothing worth a record: its error is reported as it is.
      (error) => (error instanceof StateWrittenError && hadLease ? error : undefined),
      (_error, after) => recordRevoked(after),
      {
        action: `revoke the lease of ${tool} ${alias}`,
        audited: `the revocation is audited and ${target.dir} is kept; check the state, then run the remove again`,
        unaudited: "the lease is revoked and the revocation is NOT audited",
      },
    ),
  );
  if (hadLease) await recordRevoked("");
  try {
    rmSync(target.dir, { recursive: true });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new OperatorError(`the lease of ${tool} ${alias} is revoked, but ${target.dir} could not be deleted: ${why}`, EXIT_STATE_PROBLEM);
  }
  await audit.record({ event: "target-removed", scope: auditScope(tool, alias) });
  const lines = [
    hadLease ? `revoked the lease of ${tool} target ${alias}` : `${tool} target ${alias} had no active lease`,
    `deleted ${target.dir}`,
    "restart the MCP server (the torii process your agent runs) so that it stops offering the target",
  ];
  emit(
    options,
    { action: "target-removed", tool, provider: provider.name, target: alias, lease_revoked: hadLease, removed: target.dir, restart_required: true },
    lines,
  );
  return 0;
}

/**
 * Runs a lease change. When it throws an error `writtenOf` recognises (the
 * change was renamed into place, so it is in force, but a later step failed),
 * the change is audited all the same (`; in force, but …`), then reported as
 * in force and audited; if that record fails too, as in force and NOT audited.
 */
async function auditedInForce<T, E extends StateWrittenError>(
  change: () => Promise<T>,
  writtenOf: (error: unknown) => E | undefined,
  record: (written: E, after: string) => Promise<void>,
  report: { readonly action: string; readonly audited: string; readonly unaudited?: string },
): Promise<T> {
  try {
    return await change();
  } catch (error) {
    const written = writtenOf(error);
    if (written === undefined) throw error;
    await recordInForce(() => record(written, `; in force, but ${written.problem}`), written, report.unaudited);
    throw new OperatorError(`${report.action}: ${written.file}: ${written.detail}; ${report.audited}`, EXIT_STATE_PROBLEM);
  }
}

/**
 * Audits a lease that is in force although its write reported a failure. If
 * the audit fails too, says both: the lease is in force and NOT audited.
 */
async function recordInForce(
  record: () => Promise<void>,
  written: StateWrittenError,
  unaudited = "the lease is in force and NOT audited; torii target clear revokes it",
): Promise<void> {
  try {
    await record();
  } catch (error) {
    throw new OperatorError(
      `${written.file}: ${written.detail}; and its audit record could not be written (${error instanceof Error ? error.message : String(error)}): ${unaudited}`,
      EXIT_STATE_PROBLEM,
    );
  }
}
