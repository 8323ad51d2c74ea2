/**
 * What a shims directory was found to hold, remembered from one call to the
 * next while nothing it was judged by has changed.
 *
 * Why: a manager's `shims` directory (pyenv's holds 138 entries on this
 * machine) is listed, sorted and its first files opened and read for every
 * planned child: about a third of planning a child's environment, for an
 * answer that changes when pyenv rehashes, not from one call to the next.
 *
 * What the verdict depends on, and how a change to each is seen:
 * - the listing and the order of its entries: the directory's own identity and
 *   change times (an entry added, removed, renamed or replaced changes them);
 * - each sampled file's content and kind: its identity, size and change times
 *   (a rewrite in place changes them; `touch -d` cannot set the ctime back).
 *   Not a write through a shared memory map, which may leave them as they were
 *   until the page is written back: whoever can write a file in a trusted shims
 *   directory can put any program in a shim the sample never reads anyway;
 * - where the directory really is: its real path, resolved again each call.
 *
 * Remembered only when that is all it depends on: not when a sampled entry is
 * a link (its target's path can change without the directory changing), a link
 * was passed over (a dangling one can come to life), or a sampled file is not
 * a script (a binary is compared with the rustups this call's PATH reaches).
 * And never while a time it is judged by is within RACY_MARGIN_NS of now or ahead of
 * it: a second change within the filesystem's timestamp granularity would leave
 * the times as they were (git's "racily clean" entries, handled the same way).
 */
import type { BigIntStats } from "node:fs";
import { RACY_MARGIN_NS } from "./unchanged-files.js";

/** Verdicts remembered at most (a PATH holds a few shims directories; a `.env` may name others). */
export const MAX_REMEMBERED = 64;

/** The times and identity that change with every change to an entry's content, kind, owner or place. */
function fingerprint(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.mode}:${stats.uid}:${stats.gid}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

/**
 * True when `stats` may be remembered: its last change is old enough to be followed by a visibly later one
 * (the margin of unchanged-files.ts, so both kinds of remembered reads follow one rule).
 */
export function settled(stats: BigIntStats, nowNs: bigint): boolean {
  const newest = stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs;
  return newest + RACY_MARGIN_NS <= nowNs;
}

/** The wall clock in nanoseconds. */
export function wallClockNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** What one verdict was judged by: the directory, its real path, and each sampled file (by name) with its stat. */
export interface SampleBasis {
  readonly directory: BigIntStats;
  readonly realDirectory: string;
  readonly files: readonly { readonly name: string; readonly stats: BigIntStats }[];
}

interface Remembered<T> {
  readonly directory: string;
  readonly realDirectory: string;
  readonly files: readonly { readonly name: string; readonly fingerprint: string }[];
  readonly verdict: T;
}

/** Verdicts per directory path, each valid while its basis is unchanged. */
export class UnchangedSamples<T> {
  readonly #remembered = new Map<string, Remembered<T>>();

  /**
   * The verdict remembered for `directory`, if the directory (`stats`, taken before any listing) and its real
   * path are as they were, and `statOf` finds every sampled file as it was; undefined otherwise.
   */
  verdictOf(directory: string, stats: BigIntStats, realDirectory: string, statOf: (name: string) => BigIntStats | undefined): T | undefined {
    const remembered = this.#remembered.get(directory);
    if (remembered === undefined) return undefined;
    const unchanged =
      remembered.directory === fingerprint(stats) &&
      remembered.realDirectory === realDirectory &&
      remembered.files.every(({ name, fingerprint: before }) => {
        const now = statOf(name);
        return now !== undefined && fingerprint(now) === before;
      });
    if (!unchanged) this.#remembered.delete(directory);
    return unchanged ? remembered.verdict : undefined;
  }

  /** Remembers `verdict` when every time of its basis is settled; forgets the directory's earlier verdict otherwise. */
  remember(directory: string, basis: SampleBasis, verdict: T, nowNs: bigint = wallClockNs()): void {
    const all = [basis.directory, ...basis.files.map(({ stats }) => stats)];
    if (!all.every((stats) => settled(stats, nowNs))) {
      this.#remembered.delete(directory);
      return;
    }
    if (!this.#remembered.has(directory) && this.#remembered.size >= MAX_REMEMBERED) this.#remembered.clear();
    this.#remembered.set(directory, {
      directory: fingerprint(basis.directory),
      realDirectory: basis.realDirectory,
      files: basis.files.map(({ name, stats }) => ({ name, fingerprint: fingerprint(stats) })),
      verdict,
    });
  }
}
