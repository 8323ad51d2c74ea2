/**
 * The lease and grant gates over the on-disk stores (src/state/).
 *
 * A lease is for a binding: the digest of the target's configuration as this
 * server loaded it, and of the file it came from. Before every check the gate
 * makes sure target.yaml on disk still yields that binding: an edited or
 * recreated target is inactive until the server restarts and the operator
 * activates it again, so the options the server injects are always the ones
 * the human leased.
 *
 * Grants match the canonical argv, in the target's grants file for a target
 * call and in the provider's for a call without a target: a grant for one
 * target never allows a call to another. An invalid or legacy grants file
 * allows nothing and is reported once (per file and kind) in the audit log.
 */
import path from "node:path";
import { ConfigError } from "../config/errors.js";
import { fileIdentityOf, type ProviderEntry, type TargetEntry } from "../config/registry.js";
import { checkTrustedPath } from "../config/trusted-path.js";
import { loadTargetDocument } from "../config/target-schema.js";
import { targetBinding } from "../state/fingerprints.js";
import { GRANTS_FILE, GrantStore } from "../state/grant-store.js";
import { LeaseStore } from "../state/lease-store.js";
import type { GrantGate, GrantMatch, LeaseGate, LeaseStatus } from "./gates.js";

function bindingOf(provider: ProviderEntry, target: TargetEntry, config: unknown, identity: { ino: number; birthtimeMs: number }): string {
  return targetBinding({ provider: provider.name, alias: target.name, config, fileIdentity: identity });
}

export class FileLeaseGate implements LeaseGate {
  private readonly stores = new Map<string, LeaseStore>();
  /** The binding of each target as loaded: fixed for the life of the server. */
  private readonly loaded = new Map<TargetEntry, string>();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  private store(provider: ProviderEntry): LeaseStore {
    let store = this.stores.get(provider.dir);
    if (store === undefined) {
      store = new LeaseStore(provider.dir, { clock: this.clock });
      this.stores.set(provider.dir, store);
    }
    return store;
  }

  /** The binding the server's loaded configuration stands for, or why it no longer holds. */
  private loadedBinding(provider: ProviderEntry, target: TargetEntry): { binding: string } | { reason: string } {
    let loaded = this.loaded.get(target);
    if (loaded === undefined) {
      loaded = bindingOf(provider, target, target.config, target.fileIdentity);
      this.loaded.set(target, loaded);
    }
    try {
      if (!checkTrustedPath(provider.trust, target.file, "file")) return { reason: "target.yaml is missing" };
      const doc = loadTargetDocument(target.file, { name: provider.name, mode: provider.config.targeting?.mode });
      const current = bindingOf(provider, target, doc.value, fileIdentityOf(target.file));
      if (current !== loaded) return { reason: "target.yaml changed since the MCP server started; it must be restarted and the target activated again" };
    } catch (error) {
      // An untrusted path says which one and how to fix it; a parse error stays generic.
      return { reason: error instanceof ConfigError && error.line === undefined ? error.message : "target.yaml is missing or invalid" };
    }
    return { binding: loaded };
  }

  check(provider: ProviderEntry, target: TargetEntry): Promise<LeaseStatus> {
    const binding = this.loadedBinding(provider, target);
    if (!("binding" in binding)) return Promise.resolve({ active: false, reason: binding.reason });
    const store = this.store(provider);
    const read = store.read();
    if (!read.ok) return Promise.resolve({ active: false, reason: `the lease file is invalid (${read.error.kind}); the operator can inspect it with torii target status` });
    if (store.isActive(target.name, binding.binding)) return Promise.resolve({ active: true });
    return Promise.resolve({ active: false, reason: "no active lease" });
  }

  async startWhileActive<T>(provider: ProviderEntry, target: TargetEntry, start: () => Promise<T>): Promise<{ active: true; value: T } | { active: false }> {
    const binding = this.loadedBinding(provider, target);
    if (!("binding" in binding)) return { active: false };
    return this.store(provider).startWhileActive(target.name, binding.binding, start);
  }
}

/** Reports a problem with a state file to the audit log; called at most once per file and kind. */
export type InvalidGrantsReporter = (event: "invalid-grants-ignored" | "legacy-grants-ignored", scope: string, file: string) => void;

export class FileGrantGate implements GrantGate {
  private readonly reported = new Set<string>();

  constructor(
    private readonly report: InvalidGrantsReporter,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  find(provider: ProviderEntry, target: TargetEntry | undefined, canonicalTokens: readonly string[]): Promise<GrantMatch | undefined> {
    const file = path.join(target?.dir ?? provider.dir, GRANTS_FILE);
    const lookup = new GrantStore(file, { clock: this.clock }).find(canonicalTokens);
    if (lookup.kind === "match") return Promise.resolve({ evidence: lookup.evidence });
    if (lookup.kind === "invalid") {
      const event = lookup.error.kind === "legacy" ? "legacy-grants-ignored" : "invalid-grants-ignored";
      const key = `${event}\0${file}`;
      if (!this.reported.has(key)) {
        this.reported.add(key);
        this.report(event, target === undefined ? provider.tool : `${provider.tool}/${target.name}`, file);
      }
    }
    return Promise.resolve(undefined);
  }
}
