/**
 * Model-based test (fast-check `fc.commands`): random sequences of activate,
 * add, revoke, clear, grant, revoke-grant, expire and restart run against the
 * real stores on real files and against a small in-memory model; after every
 * command, everything observable (the lease file's state and revision, which
 * targets are active for which binding, the live grants and what they match)
 * must equal the model's.
 */
import fc from "fast-check";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { StaleRevisionError } from "../../../src/state/errors.js";
import { grantEvidence, grantFingerprint, type GrantMode } from "../../../src/state/fingerprints.js";
import { GRANTS_FILE, GrantStore } from "../../../src/state/grant-store.js";
import { LeaseStore } from "../../../src/state/lease-store.js";
import { FakeClock, hex64, T0, tempDir } from "./helpers.js";
import { STATE_LOCK_TIMING } from "../../../src/state/lock.js";

const MINUTE = 60_000;
const TARGETS = ["a", "b", "c"] as const;
const BINDINGS = [hex64("b1"), hex64("b2")] as const;
const WORDS = ["get", "pods", "-n", "x"] as const;
/** Token vectors the model asks `find` about after every command. */
const PROBES: readonly (readonly string[])[] = [["get"], ["get", "pods"], ["get", "pods", "-n", "x"], ["pods", "get"], ["x"], []];

interface ModelGrant {
  readonly mode: GrantMode;
  readonly tokens: readonly string[];
  readonly expiresAt: number;
}

interface Model {
  now: number;
  revision: number;
  /** As in the file: expired entries stay until the next write. */
  leases: Map<string, { binding: string; expiresAt: number }>;
  /** In file order, keyed by matcher. */
  grants: Map<string, ModelGrant>;
}

interface Real {
  readonly dir: string;
  readonly clock: FakeClock;
  leases: LeaseStore;
  grants: GrantStore;
}

const live = (expiresAt: number, model: Model): boolean => model.now < expiresAt;
const keyOf = (mode: GrantMode, tokens: readonly string[]): string => `${mode}:${tokens.length}:${grantFingerprint(mode, tokens)}`;
const iso = (ms: number): string => new Date(ms).toISOString();

function liveTargets(model: Model): string[] {
  return [...model.leases]
    .filter(([, lease]) => live(lease.expiresAt, model))
    .map(([target]) => target)
    .sort();
}

function pruneLeases(model: Model): void {
  for (const [target, lease] of model.leases) if (!live(lease.expiresAt, model)) model.leases.delete(target);
}

function pruneGrants(model: Model): void {
  for (const [key, grant] of model.grants) if (!live(grant.expiresAt, model)) model.grants.delete(key);
}

function grantMatches(grant: ModelGrant, tokens: readonly string[]): boolean {
  if (grant.mode === "exact") return grant.tokens.length === tokens.length && grant.tokens.every((token, i) => token === tokens[i]);
  return grant.tokens.length <= tokens.length && grant.tokens.every((token, i) => token === tokens[i]);
}

/** Everything observable must equal the model. */
function checkAgainstModel(model: Model, real: Real): void {
  const read = real.leases.read();
  if (!read.ok) throw read.error;
  expect(read.state.revision).toBe(model.revision);
  expect(read.state.authorizations).toEqual(
    [...model.leases]
      .sort(([left], [right]) => left.localeCompare(right))
      .map(([target, lease]) => ({ target, binding: lease.binding, expires_at: iso(lease.expiresAt) })),
  );
  for (const target of TARGETS) {
    for (const binding of BINDINGS) {
      const lease = model.leases.get(target);
      expect(real.leases.isActive(target, binding)).toBe(lease !== undefined && lease.binding === binding && live(lease.expiresAt, model));
    }
  }
  const liveGrants = [...model.grants.values()].filter((grant) => live(grant.expiresAt, model));
  const listed = real.grants.list();
  if (!listed.ok) throw listed.error;
  expect(listed.entries).toEqual(
    liveGrants.map((grant) => ({
      expires_at: iso(grant.expiresAt),
      matcher: { mode: grant.mode, token_count: grant.tokens.length, sha256: grantFingerprint(grant.mode, grant.tokens) },
    })),
  );
  for (const probe of PROBES) {
    const expected = liveGrants.find((grant) => grantMatches(grant, probe));
    const found = real.grants.find(probe);
    if (expected === undefined) expect(found).toEqual({ kind: "none" });
    else
      expect(found).toMatchObject({
        kind: "match",
        evidence: grantEvidence({ mode: expected.mode, token_count: expected.tokens.length, sha256: grantFingerprint(expected.mode, expected.tokens) }),
      });
  }
}

type Command = fc.AsyncCommand<Model, Real>;

class Activate implements Command {
  constructor(
    readonly target: string,
    readonly binding: string,
    readonly minutes: number,
    readonly mode: "replace" | "add",
    readonly cas: "none" | "current" | "stale",
  ) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const expectedRevision = this.cas === "none" ? undefined : this.cas === "current" ? model.revision : model.revision - 1;
    if (expectedRevision !== undefined && expectedRevision < 0) return;
    const attempt = real.leases.activate(this.target, this.binding, this.minutes, this.mode, expectedRevision);
    if (this.cas === "stale") {
      await expect(attempt).rejects.toBeInstanceOf(StaleRevisionError);
    } else {
      const replaced = this.mode === "replace" ? liveTargets(model).filter((target) => target !== this.target) : [];
      pruneLeases(model);
      if (this.mode === "replace") model.leases.clear();
      model.leases.set(this.target, { binding: this.binding, expiresAt: model.now + this.minutes * MINUTE });
      model.revision += 1;
      expect((await attempt).replaced).toEqual(replaced);
    }
    checkAgainstModel(model, real);
  }
  toString = (): string => `activate(${this.target}, ${this.binding.slice(-2)}, ${this.minutes}, ${this.mode}, cas=${this.cas})`;
}

class RevokeLease implements Command {
  constructor(readonly target: string) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    if (model.leases.has(this.target)) {
      model.leases.delete(this.target);
      pruneLeases(model);
      model.revision += 1;
    }
    await real.leases.revoke(this.target);
    checkAgainstModel(model, real);
  }
  toString = (): string => `revoke(${this.target})`;
}

class ClearLeases implements Command {
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const cleared = liveTargets(model);
    model.leases.clear();
    model.revision += 1;
    expect((await real.leases.clear()).cleared).toEqual(cleared);
    checkAgainstModel(model, real);
  }
  toString = (): string => "target clear";
}

class Grant implements Command {
  constructor(
    readonly mode: GrantMode,
    readonly tokens: readonly string[],
    readonly minutes: number,
  ) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    pruneGrants(model);
    const key = keyOf(this.mode, this.tokens);
    model.grants.delete(key);
    model.grants.set(key, { mode: this.mode, tokens: this.tokens, expiresAt: model.now + this.minutes * MINUTE });
    await real.grants.add(this.mode, this.tokens, this.minutes);
    checkAgainstModel(model, real);
  }
  toString = (): string => `grant(${this.mode}, ${JSON.stringify(this.tokens)}, ${this.minutes})`;
}

class RevokeGrant implements Command {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>): boolean => model.grants.size > 0;
  async run(model: Model, real: Real): Promise<void> {
    const grants = [...model.grants.values()];
    const chosen = grants[this.pick % grants.length]!;
    const evidence = grantEvidence({ mode: chosen.mode, token_count: chosen.tokens.length, sha256: grantFingerprint(chosen.mode, chosen.tokens) });
    pruneGrants(model);
    let removed = 0;
    for (const [key, grant] of model.grants) {
      const sha256 = grantFingerprint(grant.mode, grant.tokens);
      if (grantEvidence({ mode: grant.mode, token_count: grant.tokens.length, sha256 }) === evidence) {
        model.grants.delete(key);
        removed += 1;
      }
    }
    expect(await real.grants.revoke(evidence)).toBe(removed);
    checkAgainstModel(model, real);
  }
  toString = (): string => `grant revoke #${this.pick}`;
}

class Expire implements Command {
  constructor(readonly minutes: number) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    model.now += this.minutes * MINUTE;
    real.clock.advance(this.minutes * MINUTE);
    checkAgainstModel(model, real);
    return Promise.resolve();
  }
  toString = (): string => `expire(+${this.minutes}m)`;
}

class Restart implements Command {
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    real.leases = new LeaseStore(real.dir, { clock: real.clock.now, lockTiming: STATE_LOCK_TIMING });
    real.grants = new GrantStore(path.join(real.dir, GRANTS_FILE), { clock: real.clock.now, lockTiming: STATE_LOCK_TIMING });
    checkAgainstModel(model, real);
    return Promise.resolve();
  }
  toString = (): string => "restart";
}

const commands = [
  fc
    .tuple(
      fc.constantFrom(...TARGETS),
      fc.constantFrom(...BINDINGS),
      fc.integer({ min: 1, max: 90 }),
      fc.constantFrom("replace" as const, "add" as const),
      fc.constantFrom("none" as const, "current" as const, "stale" as const),
    )
    .map(([target, binding, minutes, mode, cas]) => new Activate(target, binding, minutes, mode, cas)),
  fc.constantFrom(...TARGETS).map((target) => new RevokeLease(target)),
  fc.constant(new ClearLeases()),
  fc
    .tuple(
      fc.constantFrom("exact" as const, "prefix" as const),
      fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 1, max: 90 }),
    )
    .map(([mode, tokens, minutes]) => new Grant(mode, tokens, minutes)),
  fc.nat().map((pick) => new RevokeGrant(pick)),
  fc.integer({ min: 1, max: 60 }).map((minutes) => new Expire(minutes)),
  fc.constant(new Restart()),
];

describe("state stores against an in-memory model", () => {
  it("agree after every command of 100 random sequences of up to 30 commands", async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (sequence) => {
        const dir = tempDir();
        const clock = new FakeClock(T0);
        const real: Real = {
          dir,
          clock,
          leases: new LeaseStore(dir, { clock: clock.now, lockTiming: STATE_LOCK_TIMING }),
          grants: new GrantStore(path.join(dir, GRANTS_FILE), { clock: clock.now, lockTiming: STATE_LOCK_TIMING }),
        };
        const model: Model = { now: T0, revision: 0, leases: new Map(), grants: new Map() };
        await fc.asyncModelRun(() => ({ model, real }), sequence);
      }),
      { seed: 20260301, numRuns: 100 },
    );
  });
});
