/**
 * Trusted reads that skip the read when the file is unchanged: the rules files
 * a server reads on every call. Each read still walks the path for trust
 * (trusted-path.ts: owner and mode of every directory and of the file, at every
 * call); only opening and reading the file is skipped when the walk's last lstat
 * shows the very file last read, unchanged.
 *
 * "Unchanged" is the stat identity dev, inode, size, mtime and ctime to the
 * nanosecond: a write, truncation, rename over the file or chmod/chown moves
 * ctime, which no user can set. A write can still land within one timestamp
 * tick of the write before it and keep both times (the kernel stamps files from
 * a coarse clock; some file systems keep seconds): the content read is kept only
 * when the file's ctime is at least RACY_MARGIN_NS before the moment of the read
 * (git's "racy clean" rule), so every later write gets a ctime the kept identity
 * does not have. Anything else is read again. docs/threat-model.md has the argument.
 */
import type { BigIntStats } from "node:fs";
import { readConfigTextIfExists } from "./read-file.js";
import { inspectTrustedFile, type ConfigTrust } from "./trusted-path.js";

/**
 * How old a file's last change must be for its content to be kept: above any
 * timestamp granularity (a kernel tick is at most 10 ms; FAT keeps 2 s).
 */
export const RACY_MARGIN_NS = 3_000_000_000n;

interface Kept {
  readonly identity: string;
  readonly text: string;
}

/** The identity of a file's content as an lstat shows it. */
function identityOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
}

export class UnchangedFiles {
  private readonly kept = new Map<string, Kept>();

  /** `now` gives the wall clock in nanoseconds (injected by tests). */
  constructor(private readonly now: () => bigint = () => BigInt(Date.now()) * 1_000_000n) {}

  /** Whether the next read of `file`, if it is unchanged, returns the kept text without reading (tests). */
  keeps(file: string): boolean {
    return this.kept.has(file);
  }

  /**
   * Reads `file` below `trust.root` as readTrustedConfigText does, or returns
   * the text last read when the file is unchanged since.
   *
   * @returns undefined when the file does not exist.
   * @throws ConfigError naming the untrusted path and the command that fixes it,
   *   or the file when it cannot be read.
   */
  read(trust: ConfigTrust, file: string): string | undefined {
    const readAt = this.now();
    const inspected = inspectTrustedFile(trust, file);
    if (inspected === undefined) {
      this.kept.delete(file);
      return undefined;
    }
    const identity = identityOf(inspected.stats);
    const kept = this.kept.get(file);
    if (kept?.identity === identity) return kept.text;
    this.kept.delete(file);
    inspected.confirm();
    // The identity was taken before the read: a change in between leaves a kept identity the file no longer has.
    const text = readConfigTextIfExists(file);
    if (text !== undefined && inspected.stats.ctimeNs <= readAt - RACY_MARGIN_NS) this.kept.set(file, { identity, text });
    return text;
  }
}
