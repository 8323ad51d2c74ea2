/**
 * Human grants: `<providerDir>/grants` (for every call of the provider) and
 * `<providerDir>/targets/<alias>/grants` (only through that target).
 *
 * ```yaml
 * version: "2"
 * entries:
 *   - expires_at: 2026-01-01T12:15:00.000Z
 *     matcher:
 *       mode: prefix            # exact: every token and the count; prefix: the first token_count tokens
 *       token_count: 2
 *       sha256: 9c0e…(64 hex)   # grantFingerprint(mode, tokens)
 * ```
 *
 * A grant matches the canonical argv (what actually runs), never a command
 * line. An invalid or legacy (Torii's tab-separated) file authorises nothing
 * and is kept on disk: `find` and `list` return the StateError so the caller
 * can report it; only `clear()` replaces it, after copying it aside.
 */
import path from "node:path";
import * as z from "zod";
import type { StateError } from "./errors.js";
import { checkDuration, expiresAtSchema, expiryAfter, isLive } from "./expiry.js";
import { grantEvidence, grantFingerprint, type GrantMatcher, type GrantMode } from "./fingerprints.js";
import { StateFile, type StateFileOptions } from "./state-file.js";

export type { GrantMatcher, GrantMode } from "./fingerprints.js";

export const GRANTS_FILE = "grants";

/**
 * The grants file of a call's scope: the target's for a target, the
 * provider's otherwise. The server's grant gate and `torii grant` both use it,
 * so a grant lands exactly where the server looks, and a grant for one target
 * never allows a call to another.
 */
export function grantsFileOf(provider: { readonly dir: string }, target: { readonly dir: string } | undefined): string {
  return path.join(target?.dir ?? provider.dir, GRANTS_FILE);
}

export interface GrantEntry {
  /** ISO-8601 UTC. */
  readonly expires_at: string;
  readonly matcher: GrantMatcher;
}

export interface GrantsState {
  readonly version: "2";
  readonly entries: readonly GrantEntry[];
}

export type GrantLookup =
  | { readonly kind: "match"; readonly entry: GrantEntry; readonly evidence: string }
  | { readonly kind: "none" }
  | { readonly kind: "invalid"; readonly error: StateError };

export interface GrantStoreOptions extends StateFileOptions {
  /** The time expiry is judged against; `new Date()` by default. */
  readonly clock?: () => Date;
}

const grantsFileSchema = z.strictObject({
  version: z.literal("2"),
  entries: z.array(
    z.strictObject({
      expires_at: expiresAtSchema,
      matcher: z.strictObject({
        mode: z.enum(["exact", "prefix"]),
        token_count: z.int({ error: "must be a whole number" }).min(1, { error: "must be at least 1" }),
        sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: "must be 64 lowercase hex digits" }),
      }),
    }),
  ),
});

/** `grant:<mode>:<n>:<hex>`, where the hex is the first 8 (or more, up to all 64) digits of the digest. */
const EVIDENCE = /^grant:(exact|prefix):([1-9][0-9]{0,8}):([0-9a-f]{8,64})$/;

/** A Torii 0.x grants line: `<expiry seconds>\t<command line>`. */
const LEGACY_LINE = /^[0-9]+\t/m;

const EMPTY: GrantsState = { version: "2", entries: [] };

export class GrantStore {
  private readonly state: StateFile<GrantsState>;
  private readonly clock: () => Date;

  constructor(
    /** The grants file. */
    readonly file: string,
    options: GrantStoreOptions = {},
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.state = new StateFile<GrantsState>(
      file,
      {
        version: "2",
        schema: grantsFileSchema,
        findDuplicate: (state) => {
          const seen = new Set<string>();
          for (const { matcher } of state.entries) {
            const key = matcherKey(matcher);
            if (seen.has(key)) return `the grant ${grantEvidence(matcher)} appears twice`;
            seen.add(key);
          }
          return undefined;
        },
        isLegacy: (text) => LEGACY_LINE.test(text),
        header: "# Torii grants. Change them with `torii grant …`, not by hand.\n",
      },
      options,
    );
  }

  /**
   * The first live grant covering `canonicalTokens`. Exact: the token count and
   * the digest of all tokens are equal. Prefix: `token_count` is at most the
   * number of tokens and the digest of the first `token_count` equals (the rest
   * is deliberately free). An invalid or legacy file authorises nothing.
   * `minimumPrefix`: a prefix grant covering fewer tokens does not count (the
   * call writes a local file and the grant does not name its command path).
   */
  find(canonicalTokens: readonly string[], minimumPrefix = 0): GrantLookup {
    const read = this.read();
    if (!read.ok) return { kind: "invalid", error: read.error };
    const now = this.clock();
    const digests = new Map<string, string>();
    const digest = (mode: GrantMode, count: number): string => {
      const key = `${mode}:${count}`;
      let value = digests.get(key);
      if (value === undefined) {
        value = grantFingerprint(mode, canonicalTokens.slice(0, count));
        digests.set(key, value);
      }
      return value;
    };
    for (const entry of read.state.entries) {
      if (!isLive(entry.expires_at, now)) continue;
      const { mode, token_count: count, sha256 } = entry.matcher;
      const fits = mode === "exact" ? count === canonicalTokens.length : count <= canonicalTokens.length && count >= minimumPrefix;
      if (fits && digest(mode, count) === sha256) return { kind: "match", entry, evidence: grantEvidence(entry.matcher) };
    }
    return { kind: "none" };
  }

  /** Live entries (expired ones filtered), or the StateError. */
  list(): { readonly ok: true; readonly entries: readonly GrantEntry[] } | { readonly ok: false; readonly error: StateError } {
    const read = this.read();
    if (!read.ok) return read;
    const now = this.clock();
    return { ok: true, entries: read.state.entries.filter((entry) => isLive(entry.expires_at, now)) };
  }

  /**
   * Under the lock: adds a grant for `tokens` (the whole canonical argv for
   * "exact", the chosen prefix for "prefix"), pruning expired entries. Granting
   * the same tokens and mode again replaces the earlier entry's expiry.
   * Refuses (StateError) to write over an invalid file. `beforeWrite` runs under
   * the lock just before the write; what it throws writes nothing and is thrown
   * (the server's check that no `torii grant clear|revoke` superseded the answer,
   * approval/apply-answer.ts).
   *
   * @throws RangeError for a duration outside 1..1440, an unknown mode or no tokens.
   */
  async add(mode: GrantMode, tokens: readonly string[], minutes: number, beforeWrite?: () => Promise<void>): Promise<GrantEntry> {
    checkDuration(minutes);
    if (!(["exact", "prefix"] as readonly unknown[]).includes(mode)) throw new RangeError(`the mode must be "exact" or "prefix", got ${JSON.stringify(mode)}`);
    if (tokens.length === 0) throw new RangeError("a grant needs at least one token");
    if (!tokens.every((token) => typeof token === "string")) throw new RangeError("every token must be a string");
    const matcher: GrantMatcher = { mode, token_count: tokens.length, sha256: grantFingerprint(mode, tokens) };
    return this.state.locked(async (write) => {
      const current = this.readForUpdate();
      const now = this.clock();
      const entry: GrantEntry = { expires_at: expiryAfter(now, minutes), matcher };
      const others = current.entries.filter((existing) => isLive(existing.expires_at, now) && matcherKey(existing.matcher) !== matcherKey(matcher));
      await beforeWrite?.();
      await write({ version: "2", entries: [...others, entry] });
      return entry;
    });
  }

  /**
   * Under the lock: removes the live entries whose evidence matches
   * (`grant:exact:2:1a2b3c4d`; more hex digits narrow it further), pruning
   * expired ones; returns how many were removed. `underLock` runs under the
   * lock once the file was read as valid (`torii grant revoke` supersedes the
   * answered grants not yet written there, state/approval-store.ts); an invalid
   * file throws before it runs.
   *
   * @throws RangeError for a malformed evidence string.
   */
  async revoke(evidence: string, underLock?: () => Promise<void>): Promise<number> {
    const matches = evidenceMatcher(evidence);
    return this.state.locked(async (write) => {
      // Read first: an invalid file stops the revoke before `underLock` has marked anything, so "nothing was changed" holds.
      const current = this.readForUpdate();
      await underLock?.();
      const now = this.clock();
      const live = current.entries.filter((entry) => isLive(entry.expires_at, now));
      const remaining = live.filter((entry) => !matches(entry.matcher));
      if (remaining.length === current.entries.length) return 0;
      await write({ version: "2", entries: remaining });
      return live.length - remaining.length;
    });
  }

  /**
   * Under the lock: removes every entry; an invalid file is first copied aside (like LeaseStore.clear) and replaced.
   * `underLock` runs first under the lock, whatever the file holds (`torii grant clear` supersedes the answered
   * grants not yet written, state/approval-store.ts); what it throws clears nothing.
   */
  async clear(underLock?: () => Promise<void>): Promise<{ removed: number; preservedInvalid?: string }> {
    return this.state.locked(async (write) => {
      await underLock?.();
      const read = this.state.read();
      if (read.kind === "missing") return { removed: 0 };
      if (read.kind === "error") {
        if (!read.recoverable) throw read.error;
        const preservedInvalid = await this.state.preserveInvalid(this.clock());
        await write(EMPTY);
        return { removed: 0, preservedInvalid };
      }
      const now = this.clock();
      const removed = read.state.entries.filter((entry) => isLive(entry.expires_at, now)).length;
      if (read.state.entries.length > 0) await write(EMPTY);
      return { removed };
    });
  }

  private read(): { readonly ok: true; readonly state: GrantsState } | { readonly ok: false; readonly error: StateError } {
    return this.state.readOr(EMPTY);
  }

  private readForUpdate(): GrantsState {
    const read = this.read();
    if (!read.ok) throw read.error;
    return read.state;
  }
}

/**
 * Whether a grant's matcher is one `evidence` names (`grant:exact:2:1a2b3c4d`; more hex digits narrow it further).
 *
 * @throws RangeError for a malformed evidence string.
 */
export function evidenceMatcher(evidence: string): (matcher: GrantMatcher) => boolean {
  const parsed = EVIDENCE.exec(evidence);
  if (parsed === null) throw new RangeError(`not a grant reference (grant:<exact|prefix>:<count>:<8+ hex>): ${JSON.stringify(evidence)}`);
  const [, mode, count, hex] = parsed as unknown as [string, GrantMode, string, string];
  return (matcher) => matcher.mode === mode && matcher.token_count === Number(count) && matcher.sha256.startsWith(hex);
}

function matcherKey(matcher: GrantMatcher): string {
  return `${matcher.mode}:${matcher.token_count}:${matcher.sha256}`;
}
