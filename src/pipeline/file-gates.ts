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
import { ConfigError } from "../config/errors.js";
import { readConfigTextIfExists, readTrustedConfigText } from "../config/read-file.js";
import { fileIdentityOf, type FileIdentity, type ProviderEntry, type TargetEntry } from "../config/registry.js";
import { parseTargetDocument } from "../config/target-schema.js";
import { grantsFileOf, GrantStore } from "../state/grant-store.js";
import { leaseBindingOf } from "../state/lease-status.js";
import { isActiveIn, LeaseStore } from "../state/lease-store.js";
import type { GrantGate, GrantMatch, LeaseCheckpoint, LeaseGate, LeaseStatus } from "./gates.js";

/** The checkpoints that follow the previous one within milliseconds (authentication, then the spawn): they reuse its trust walk. */
const REUSES_WALK: ReadonlySet<LeaseCheckpoint> = new Set(["after-auth", "at-launch"]);

export class FileLeaseGate implements LeaseGate {
  private readonly stores = new Map<string, LeaseStore>();
  /** The binding of each target as loaded: fixed for the life of the server. */
  private readonly loaded = new Map<TargetEntry, string>();
  /** The last target.yaml bytes and identity found to yield the loaded binding. */
  private readonly verified = new Map<TargetEntry, { readonly text: string } & FileIdentity>();
  /**
   * Targets whose target.yaml passed the trust walk (trusted-path.ts) at the
   * latest walking checkpoint. A call walks at "policy" and again at
   * "before-env" (which follows the wait for a human, minutes perhaps); the
   * checkpoints that follow within milliseconds ("after-auth", "at-launch")
   * reuse that walk. A failed walk clears the entry: the next checkpoint walks
   * again. The set belongs to the server's gate, so a walk by a concurrent call
   * can stand in for this call's latest one: a failure anywhere only makes it stricter.
   */
  private readonly walked = new Set<TargetEntry>();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  private store(provider: ProviderEntry): LeaseStore {
    let store = this.stores.get(provider.dir);
    if (store === undefined) {
      store = new LeaseStore(provider.dir, { clock: this.clock });
      this.stores.set(provider.dir, store);
    }
    return store;
  }

  /**
   * The binding the server's loaded configuration stands for, or why it no
   * longer holds. target.yaml is read and its identity taken at every
   * checkpoint; it is parsed again only when its bytes or identity differ from
   * the last ones verified, since the binding is a function of exactly those.
   */
  private loadedBinding(provider: ProviderEntry, target: TargetEntry, checkpoint: LeaseCheckpoint): { binding: string } | { reason: string } {
    let loaded = this.loaded.get(target);
    if (loaded === undefined) {
      loaded = leaseBindingOf(provider.name, target);
      this.loaded.set(target, loaded);
    }
    try {
      // Read, then identify (the order the registry loads in): a file replaced in between yields a new binding.
      const text = this.readTarget(provider, target, checkpoint);
      if (text === undefined) return { reason: "target.yaml is missing" };
      const identity = fileIdentityOf(target.file);
      const verified = this.verified.get(target);
      if (verified?.text === text && verified.ino === identity.ino && verified.birthtimeMs === identity.birthtimeMs) return { binding: loaded };
      const doc = parseTargetDocument(target.file, text, { name: provider.name, mode: provider.config.targeting?.mode });
      const current = leaseBindingOf(provider.name, { name: target.name, config: doc.value, fileIdentity: identity });
      if (current !== loaded) return { reason: "target.yaml changed since the MCP server started; it must be restarted and the target activated again" };
      this.verified.set(target, { text, ...identity });
    } catch (error) {
      // An untrusted path says which one and how to fix it; a parse error stays generic.
      return { reason: error instanceof ConfigError && error.line === undefined ? error.message : "target.yaml is missing or invalid" };
    }
    return { binding: loaded };
  }

  /** target.yaml's text: walked for trust at "policy" and "before-env" (or when no walk has passed), read directly just before launch. */
  private readTarget(provider: ProviderEntry, target: TargetEntry, checkpoint: LeaseCheckpoint): string | undefined {
    if (REUSES_WALK.has(checkpoint) && this.walked.has(target)) return readConfigTextIfExists(target.file);
    this.walked.delete(target);
    const text = readTrustedConfigText(provider.trust, target.file);
    if (text !== undefined) this.walked.add(target);
    return text;
  }

  check(provider: ProviderEntry, target: TargetEntry, checkpoint: LeaseCheckpoint): Promise<LeaseStatus> {
    const binding = this.loadedBinding(provider, target, checkpoint);
    if (!("binding" in binding)) return Promise.resolve({ active: false, reason: binding.reason });
    const read = this.store(provider).read();
    if (!read.ok)
      return Promise.resolve({ active: false, reason: `the lease file is invalid (${read.error.kind}); the operator can inspect it with torii target status` });
    if (isActiveIn(read.state, target.name, binding.binding, this.clock())) return Promise.resolve({ active: true });
    return Promise.resolve({ active: false, reason: "no active lease" });
  }

  async startWhileActive<T>(provider: ProviderEntry, target: TargetEntry, start: () => Promise<T>): Promise<{ active: true; value: T } | { active: false }> {
    const binding = this.loadedBinding(provider, target, "at-launch");
    if (!("binding" in binding)) return { active: false };
    // start() resolves once the process is spawned (LeaseGate): the lock covers that, not the run.
    return this.store(provider).startNowWhileActive(target.name, binding.binding, start);
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

  find(provider: ProviderEntry, target: TargetEntry | undefined, canonicalTokens: readonly string[], minimumPrefix = 0): Promise<GrantMatch | undefined> {
    const file = grantsFileOf(provider, target);
    const lookup = new GrantStore(file, { clock: this.clock }).find(canonicalTokens, minimumPrefix);
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
