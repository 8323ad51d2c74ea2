/**
 * The lease line of the approval page: which lease lets this call reach its
 * target, read from the same lease file the lease gate reads.
 */
import type { ProviderEntry, TargetEntry } from "../config/registry.js";
import { LeaseStore, liveAuthorizations } from "../state/lease-store.js";

/** "active until …" for the target's live lease, or why there is none to show. */
export function leaseText(provider: ProviderEntry, target: TargetEntry | undefined, now: Date): string {
  if (target === undefined) return "none needed (the provider has no targets)";
  const read = new LeaseStore(provider.dir).read();
  if (!read.ok) return "the lease file is invalid (torii target status shows why)";
  const live = liveAuthorizations(read.state, now).find((authorization) => authorization.target === target.name);
  return live === undefined ? "no live lease" : `active until ${live.expires_at}`;
}
