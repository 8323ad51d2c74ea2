/**
 * How a target stands with its provider's lease file: the one definition the
 * server's lease gate and the operator's `torii target …` commands share, so
 * the CLI can never show a target active that the server treats as inactive
 * (an expiry beyond the clock-skew limit, a lease for an earlier target.yaml).
 */
import { targetBinding, type FileIdentity } from "./fingerprints.js";
import type { LeaseState } from "./lease-store.js";
import { isLive } from "./expiry.js";

/** What a binding is computed from: a target's alias, its configuration and its file's identity. */
export interface BindingSource {
  readonly name: string;
  readonly config: unknown;
  readonly fileIdentity: FileIdentity;
}

/** The lease binding of `target` of provider `providerName`, as configured in `target` (the digest leases are for). */
export function leaseBindingOf(providerName: string, target: BindingSource): string {
  return targetBinding({ provider: providerName, alias: target.name, config: target.config, fileIdentity: target.fileIdentity });
}

/**
 * - `active`: a live lease for exactly this binding: the target may be called.
 * - `stale`: a live lease, but for another binding (an earlier or recreated
 *   target.yaml): it allows nothing.
 * - `none`: no live lease (none at all, expired, or beyond the skew limit).
 */
export type TargetLeaseStatus =
  { readonly kind: "active"; readonly expires_at: string } | { readonly kind: "stale"; readonly expires_at: string } | { readonly kind: "none" };

/** The status of `target` with `binding` in a valid lease `state` at `now` (liveness by the store's skew rule). */
export function leaseStatusOf(state: LeaseState, target: string, binding: string, now: Date): TargetLeaseStatus {
  const live = state.authorizations.filter((authorization) => authorization.target === target && isLive(authorization.expires_at, now));
  const current = live.find((authorization) => authorization.binding === binding);
  if (current !== undefined) return { kind: "active", expires_at: current.expires_at };
  const other = live[0];
  return other === undefined ? { kind: "none" } : { kind: "stale", expires_at: other.expires_at };
}
