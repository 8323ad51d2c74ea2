/**
 * Human leases per provider: `<providerDir>/.target-authorizations.yaml`.
 *
 * ```yaml
 * version: "1"
 * revision: 7                     # +1 on every write; the compare-and-swap token
 * authorizations:
 *   - target: prod
 *     binding: 3f1c…(64 hex)      # targetBinding(): the target's config and file identity
 *     expires_at: 2026-01-01T12:15:00.000Z
 * ```
 *
 * A target is active only while a lease for its *current* binding is live, so
 * editing, removing or recreating the target ends its lease. Every write takes
 * the file's lock, reads, checks the caller's expected revision, and replaces
 * the file atomically with revision + 1. Reads are lock-free and fail closed: a
 * bad file activates nothing and stays on disk until `clear()`.
 * Revoking a lease never stops a process that is already running.
 */
import path from "node:path";
import { parse } from "yaml";
import * as z from "zod";
import { safeNameSchema } from "../config/common-fields.js";
import { StaleRevisionError, StateError, StateWrittenError } from "./errors.js";
import { checkDuration, expiresAtSchema, expiryAfter, isLive } from "./expiry.js";
import { leaseStatusOf } from "./lease-status.js";
import { StateFile, type StateFileOptions } from "./state-file.js";

export const LEASE_FILE = ".target-authorizations.yaml";

export interface LeaseAuthorization {
  readonly target: string;
  readonly binding: string;
  /** ISO-8601 UTC. */
  readonly expires_at: string;
}

export interface LeaseState {
  readonly version: "1";
  readonly revision: number;
  readonly authorizations: readonly LeaseAuthorization[];
}

export type LeaseRead = { readonly ok: true; readonly state: LeaseState } | { readonly ok: false; readonly error: StateError };

export type ActivationMode = "replace" | "add";

/** What an activation wrote: the new state and the targets whose live leases it replaced. */
export interface LeaseActivation {
  readonly state: LeaseState;
  readonly replaced: readonly string[];
}

/**
 * An activation whose new state was renamed into place before a later step
 * (the directory's fsync, the lock's release) failed: the lease is in force.
 * Carries what was written, so the caller can audit it as it audits a success.
 */
export class LeaseWrittenError extends StateWrittenError {
  override readonly name: string = "LeaseWrittenError";
  readonly activation: LeaseActivation;

  constructor(error: StateWrittenError, activation: LeaseActivation) {
    super(error.file, error.problem, { cause: error.cause });
    this.activation = activation;
  }
}

/** What a clear wrote: the new state, the targets whose live leases it revoked, and the copy of an invalid file it replaced. */
export interface LeaseClearing {
  readonly state: LeaseState;
  readonly cleared: readonly string[];
  readonly preservedInvalid?: string;
}

/**
 * A clear whose new state was renamed into place before a later step failed:
 * the leases are revoked. Carries what was written, so the caller can audit it
 * as it audits a success.
 */
export class LeaseClearWrittenError extends StateWrittenError {
  override readonly name: string = "LeaseClearWrittenError";
  readonly clearing: LeaseClearing;

  constructor(error: StateWrittenError, clearing: LeaseClearing) {
    super(error.file, error.problem, { cause: error.cause });
    this.clearing = clearing;
  }
}

export interface LeaseStoreOptions extends StateFileOptions {
  /** The time expiry is judged against; `new Date()` by default. */
  readonly clock?: () => Date;
}

const bindingSchema = z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lowercase hex digits (a SHA-256)" });
const targetSchema = safeNameSchema(64);
/** The largest revision a file may hold: one more must still be a safe integer. */
const MAX_REVISION = Number.MAX_SAFE_INTEGER - 1;

const leaseFileSchema = z.strictObject({
  version: z.literal("1"),
  revision: z.int({ error: "must be a whole number" }).min(0, { error: "must not be negative" }).max(MAX_REVISION),
  authorizations: z.array(
    z.strictObject({
      target: targetSchema,
      binding: bindingSchema,
      expires_at: expiresAtSchema,
    }),
  ),
});

const EMPTY: LeaseState = { version: "1", revision: 0, authorizations: [] };

/** The authorizations of `state` that are live at `now` (expired ones stay in the file until the next write). */
export function liveAuthorizations(state: LeaseState, now: Date): readonly LeaseAuthorization[] {
  return state.authorizations.filter((authorization) => isLive(authorization.expires_at, now));
}

export class LeaseStore {
  /** The lease file. */
  readonly file: string;
  private readonly state: StateFile<LeaseState>;
  private readonly clock: () => Date;

  constructor(providerDir: string, options: LeaseStoreOptions = {}) {
    this.file = path.join(providerDir, LEASE_FILE);
    this.clock = options.clock ?? (() => new Date());
    this.state = new StateFile<LeaseState>(
      this.file,
      {
        version: "1",
        schema: leaseFileSchema,
        findDuplicate: (state) => {
          const seen = new Set<string>();
          for (const { target } of state.authorizations) {
            if (seen.has(target)) return `target ${JSON.stringify(target)} has two authorizations`;
            seen.add(target);
          }
          return undefined;
        },
        header: "# Torii target leases. Change them with `torii target activate|clear`, not by hand.\n",
      },
      options,
    );
  }

  /** A missing file is an empty state at revision 0; an invalid one is {ok:false} and is left on disk untouched. */
  read(): LeaseRead {
    return this.state.readOr(EMPTY);
  }

  /** True only for a valid state holding an unexpired authorization for exactly (target, binding). Fail closed. */
  isActive(target: string, binding: string): boolean {
    const read = this.read();
    return read.ok && isActiveIn(read.state, target, binding, this.clock());
  }

  /**
   * Under the lock: mode "replace" drops every other authorization, "add" keeps
   * the live ones; `minutes` 1..1440. With `expectedRevision` (CAS), throws
   * StaleRevisionError when the file moved on. Expired entries are pruned.
   * Refuses (StateError) to write over an invalid file. Returns the new state
   * and the targets whose live leases it replaced.
   *
   * @throws RangeError for a bad duration, target name, binding, mode or revision.
   */
  async activate(target: string, binding: string, minutes: number, mode: ActivationMode, expectedRevision?: number): Promise<LeaseActivation> {
    checkDuration(minutes);
    checkArgument("target", targetSchema, target);
    checkArgument("binding", bindingSchema, binding);
    if (!(["replace", "add"] as readonly unknown[]).includes(mode)) throw new RangeError(`the mode must be "replace" or "add", got ${JSON.stringify(mode)}`);
    checkExpectedRevision(expectedRevision);
    let outcome: LeaseActivation | undefined;
    try {
      return await this.state.locked(async (write) => {
        const current = this.readForUpdate(expectedRevision);
        const now = this.clock();
        const others = liveAuthorizations(current, now).filter((authorization) => authorization.target !== target);
        const granted: LeaseAuthorization = { target, binding, expires_at: expiryAfter(now, minutes) };
        const state = next(current, [...(mode === "add" ? others : []), granted]);
        outcome = { state, replaced: mode === "replace" ? others.map((authorization) => authorization.target) : [] };
        await write(state);
        return outcome;
      });
    } catch (error) {
      // Renamed into place, then a later step failed: the lease is in force, and the caller must still audit it.
      if (error instanceof StateWrittenError && outcome !== undefined) throw new LeaseWrittenError(error, outcome);
      throw error;
    }
  }

  /** Under the lock: removes the target's authorization, pruning expired ones; no write when it has none. */
  async revoke(target: string, expectedRevision?: number): Promise<LeaseState> {
    checkExpectedRevision(expectedRevision);
    return this.state.locked(async (write) => {
      const current = this.readForUpdate(expectedRevision);
      if (!current.authorizations.some((authorization) => authorization.target === target)) return current;
      const remaining = liveAuthorizations(current, this.clock()).filter((authorization) => authorization.target !== target);
      const state = next(current, remaining);
      await write(state);
      return state;
    });
  }

  /**
   * Under the lock: revokes every lease, always writing a new revision (so a
   * compare-and-swap prepared before the clear fails). The one operator action
   * that recovers from an invalid file: its bytes are first copied to
   * `<file>.invalid-<UTC time>` (kept for the operator), then it is replaced by
   * an empty state. A file refused for its path (symlink, owner, mode) or
   * unreadable is not touched: that error is thrown.
   */
  async clear(): Promise<LeaseClearing> {
    let outcome: LeaseClearing | undefined;
    try {
      return await this.state.locked(async (write) => {
        const read = this.state.read();
        if (read.kind === "error") {
          if (!read.recoverable) throw read.error;
          const preservedInvalid = await this.state.preserveInvalid(this.clock());
          const state: LeaseState = { version: "1", revision: (read.bytes === undefined ? 0 : salvageRevision(read.bytes)) + 1, authorizations: [] };
          outcome = { state, cleared: [], preservedInvalid };
          await write(state);
          return outcome;
        }
        const current = read.kind === "ok" ? read.state : EMPTY;
        const cleared = liveAuthorizations(current, this.clock()).map((authorization) => authorization.target);
        const state = next(current, []);
        outcome = { state, cleared };
        await write(state);
        return outcome;
      });
    } catch (error) {
      // Renamed into place, then a later step failed: the leases are revoked, and the caller must still audit it.
      if (error instanceof StateWrittenError && outcome !== undefined) throw new LeaseClearWrittenError(error, outcome);
      throw error;
    }
  }

  /**
   * Holds the lock while checking the lease and running `start()` (which spawns
   * and resolves once the process has started); never holds it for the run. A
   * revocation that lands first stops the start; one that comes later waits for
   * `start()` and then does not affect the running process. An invalid state
   * is {active:false}.
   *
   * @throws LockTimeoutError when the lock stays busy; LockCompromisedError when
   *   `start()` resolved but the lock may have been lost meanwhile (the process
   *   started without exclusion: the caller must stop it); whatever `start()` throws.
   */
  async startWhileActive<T>(target: string, binding: string, start: () => Promise<T>): Promise<{ active: true; value: T } | { active: false }> {
    if (!this.isActive(target, binding)) return { active: false };
    return this.startNowWhileActive(target, binding, start);
  }

  /**
   * `startWhileActive` without the check before the lock: `start` resolves
   * once the process has been spawned (the child host answered), and the lock
   * is held until then, taken at once with one `mkdir` when free, else waited
   * for like every writer, refreshed and checked for ownership meanwhile
   * (`lockedWhile`). A revocation that commits first makes the check under the
   * lock fail; one that comes later finds the process started.
   *
   * @throws as startWhileActive.
   */
  async startNowWhileActive<T>(target: string, binding: string, start: () => Promise<T>): Promise<{ active: true; value: T } | { active: false }> {
    // No check before the lock: the caller's checkpoint just read the file, and the one that counts is under the lock.
    return this.state.lockedWhile(async () => (this.isActive(target, binding) ? { active: true, value: await start() } : { active: false }));
  }

  /** The current state for a write: refuses an invalid file and a stale expected revision. */
  private readForUpdate(expectedRevision: number | undefined): LeaseState {
    const read = this.read();
    if (!read.ok) throw read.error;
    if (expectedRevision !== undefined && expectedRevision !== read.state.revision) {
      throw new StaleRevisionError(this.file, expectedRevision, read.state.revision);
    }
    return read.state;
  }
}

/** True when `state` holds a live authorization for exactly (target, binding) at `now` (the shared lease status). */
export function isActiveIn(state: LeaseState, target: string, binding: string, now: Date): boolean {
  return leaseStatusOf(state, target, binding, now).kind === "active";
}

function next(current: LeaseState, authorizations: readonly LeaseAuthorization[]): LeaseState {
  const sorted = [...authorizations].sort((left, right) => (left.target < right.target ? -1 : left.target > right.target ? 1 : 0));
  return { version: "1", revision: current.revision + 1, authorizations: sorted };
}

function checkArgument(name: string, schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RangeError(`the ${name} ${parsed.error.issues[0]?.message ?? "is invalid"}, got ${JSON.stringify(value)}`);
}

function checkExpectedRevision(expected: number | undefined): void {
  if (expected !== undefined && (!Number.isSafeInteger(expected) || expected < 0)) {
    throw new RangeError(`the expected revision must be a whole number of at least 0, got ${String(expected)}`);
  }
}

/**
 * The revision an invalid file claimed, if it still says one, so clearing it
 * keeps revisions increasing (a compare-and-swap prepared before the damage
 * then fails); 0 when nothing can be read.
 */
function salvageRevision(bytes: Buffer): number {
  try {
    const value: unknown = parse(bytes.toString("utf8"), { maxAliasCount: 0 });
    if (typeof value === "object" && value !== null && "revision" in value) {
      const revision = value.revision;
      if (typeof revision === "number" && Number.isSafeInteger(revision) && revision >= 0 && revision < MAX_REVISION) return revision;
    }
  } catch {
    // Unparseable: nothing to salvage.
  }
  return 0;
}
