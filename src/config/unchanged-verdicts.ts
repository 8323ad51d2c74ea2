/**
 * Verdicts judged by many paths, remembered from one call to the next while
 * every one of those paths is as it was: the version pins of a whole call
 * (version-pin.ts) and the file a command resolves to
 * (pipeline/remembered-executable.ts).
 *
 * The rule: each path a verdict touched
 * is recorded by the lstat of every component from `/` down, links followed as
 * the kernel follows them, and the verdict is answered again only while every
 * one of those lstats is as it was (a missing one still missing). What they cover:
 * - a file's content (read, hashed, its head sampled): its identity, size and
 *   change times (a rewrite in place changes them; `touch -d` cannot set the
 *   ctime back);
 * - a directory's listing: its own times (an entry added, removed or renamed);
 * - that nothing is at a path: its parent's times (creating, renaming or
 *   removing an entry moves them), or the file standing where its parent would be;
 * - owners and modes along the way (what the trust rule judged): uid, gid and
 *   mode are in each fingerprint, and a chmod or chown moves the ctime too;
 * - where a path really is: each link met on the way (its target text cannot
 *   change without replacing it: a new inode or ctime, and its directory's times)
 *   and every component of where it leads. A link on procfs (`/proc/<pid>/cwd`,
 *   `/proc/<pid>/fd/<n>`, which lead wherever that process moved or repointed them
 *   without a change to their lstat), or one whose size is not its target's length,
 *   makes the record incomplete: never remembered.
 *
 * Never while a time relied on is within RACY_MARGIN_NS of now or ahead of it:
 * a second change within the filesystem's timestamp granularity would leave the
 * times as they were (git's "racily clean" entries, handled the same way).
 */
import { lstatSync, readlinkSync, statfsSync, type BigIntStats } from "node:fs";
import path from "node:path";
import { RACY_MARGIN_NS } from "./unchanged-files.js";

/** statfs's type of procfs (PROC_SUPER_MAGIC), whose links lead wherever a process is without a change to their lstat. */
const PROC_SUPER_MAGIC = 0x9fa0;

/** Whether the link `file` lives on a procfs, wherever that is mounted (`/proc`, a container's `/host/proc`); a failed statfs counts as one. */
function onProcfs(file: string): boolean {
  try {
    return statfsSync(path.dirname(file)).type === PROC_SUPER_MAGIC;
  } catch {
    return true;
  }
}

/** Verdicts remembered at most per memo (a server plans children for a few providers, programs and `.env` layers). */
const MAX_REMEMBERED = 64;

/**
 * True when `stats` may be remembered: its last change is old enough to be followed by a visibly later one
 * (the margin of unchanged-files.ts, so both kinds of remembered reads follow one rule).
 */
function settled(stats: BigIntStats, nowNs: bigint): boolean {
  const newest = stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs;
  return newest + RACY_MARGIN_NS <= nowNs;
}

/** The wall clock in nanoseconds. */
function wallClockNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/** Links followed at most while recording one path (the kernel's limit is 40). */
const MAX_LINKS = 40;

/** What one lstat of a path showed: its stats, or nothing there. */
type Observation = BigIntStats | "missing";

/** One lstat, `missing` for nothing there (or a file where a directory was expected); undefined for any other failure. */
function lstatOf(file: string): Observation | undefined {
  try {
    return lstatSync(file, { bigint: true, throwIfNoEntry: false }) ?? "missing";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOTDIR" ? "missing" : undefined;
  }
}

/**
 * Whether `now` shows what a verdict relied on in `before`. A component passed on the way, or a place the trust
 * rule judged, is relied on for its kind, identity, owner and mode: not its times, which move whenever an entry
 * is added below it (the working directory, `/tmp`). A link, a file read or a directory listed (or answering
 * for a missing name) is relied on for its size and times too. Compared field by field: this runs for every
 * path of a remembered verdict at every call.
 */
function unchanged(before: BigIntStats, now: BigIntStats, content: boolean): boolean {
  if (now.ino !== before.ino || now.dev !== before.dev || now.mode !== before.mode || now.uid !== before.uid || now.gid !== before.gid) return false;
  if (!content && !before.isSymbolicLink()) return true;
  return now.ctimeNs === before.ctimeNs && now.mtimeNs === before.mtimeNs && now.size === before.size;
}

/** One path a verdict relies on, as it was seen, and how. */
interface Relied {
  readonly file: string;
  readonly content: boolean;
  readonly stats: BigIntStats;
}

/**
 * The paths a computation touched, each recorded by the lstat of every component from `/` down (links followed
 * as the kernel follows them): what the computation's verdict was judged by. POSIX paths only.
 */
export class Observations {
  readonly #seen = new Map<string, { readonly seen: Observation; content: boolean }>();
  #complete = true;

  /**
   * Records `target` and every component on the way to it, resolving each link met. `content`: the verdict
   * relies on what the file holds or the directory lists (and on the times of whatever a link leads to).
   */
  record(target: string, content: boolean): void {
    if (!target.startsWith("/")) {
      // A relative path depends on the working directory of the process: not recorded, so never remembered.
      this.#complete = false;
      return;
    }
    if (this.#observe("/", content && /^\/+$/u.test(target)) === undefined) return;
    let current = "/";
    let pending = target.split("/");
    let links = 0;
    for (let index = 0; index < pending.length; index += 1) {
      const name = pending[index] ?? "";
      if (name === "" || name === ".") continue;
      const last = pending.slice(index + 1).every((rest) => rest === "" || rest === ".");
      // The components behind `current` are resolved: `..` is its parent, as the kernel takes it.
      if (name === "..") {
        current = current === "/" ? "/" : current.slice(0, current.lastIndexOf("/")) || "/";
        if (last && content) this.#observe(current, true);
        continue;
      }
      const next = current === "/" ? `/${name}` : `${current}/${name}`;
      const seen = this.#observe(next, last && content);
      if (seen === undefined) return;
      if (seen === "missing") {
        // Nothing there stays so while the directory's times are as they were (creating an entry moves them), or
        // while a file stands where a directory would be: one lstat of the parent answers for all its missing names.
        this.#observe(current, true);
        return;
      }
      if (!seen.isSymbolicLink()) {
        current = next;
        continue;
      }
      let text: string;
      try {
        text = readlinkSync(next);
      } catch {
        this.#complete = false;
        return;
      }
      // A link's lstat answers for its target only when its size is the target's length, as on every disk file
      // system. The kernel's own links (`/proc/<pid>/cwd`, `/proc/<pid>/root`, `/proc/self`: size 0;
      // `/proc/<pid>/fd/<n>`: size 64, whatever it leads to) keep their inode and times while they come to lead
      // elsewhere: a link on procfs, or one whose size is not its target's length, is never remembered.
      if (seen.size !== BigInt(Buffer.byteLength(text)) || onProcfs(next)) {
        this.#complete = false;
        return;
      }
      links += 1;
      if (links > MAX_LINKS) {
        this.#complete = false;
        return;
      }
      if (text.startsWith("/")) current = "/";
      pending = [...text.split("/"), ...pending.slice(index + 1)];
      index = -1;
    }
  }

  /** The lstat of `file`, once per computation; a failure other than nothing there makes the record incomplete. */
  #observe(file: string, content: boolean): Observation | undefined {
    const known = this.#seen.get(file);
    if (known !== undefined) {
      known.content ||= content;
      return known.seen;
    }
    const seen = lstatOf(file);
    if (seen === undefined) {
      this.#complete = false;
      return undefined;
    }
    this.#seen.set(file, { seen, content });
    return seen;
  }

  /**
   * Marks the record incomplete: a read of a recorded path failed for a reason its lstats do not show (too many
   * open files, an I/O error), so the verdict judged with that failure is no answer for the next call.
   */
  readFailed(): void {
    this.#complete = false;
  }

  /** Whether every path touched was recorded, and every time relied on is old enough to be followed by a visibly later one. */
  settledAt(nowNs: bigint): boolean {
    if (!this.#complete) return false;
    for (const { seen, content } of this.#seen.values()) {
      if (seen !== "missing" && (content || seen.isSymbolicLink()) && !settled(seen, nowNs)) return false;
    }
    return true;
  }

  /** What the verdict relies on at each path, in the order recorded; a missing name is answered for by its parent. */
  reliedOn(): readonly Relied[] {
    return [...this.#seen].flatMap(([file, { seen, content }]) => (seen === "missing" ? [] : [{ file, content, stats: seen }]));
  }
}

/**
 * The lstats taken while checking verdicts in one computation (a call's search trust): the pins and the program's
 * resolution are judged by many of the same paths (`/`, the shared temporary directories, the account databases,
 * the program), looked at once per computation as stat-once.ts does, never from one call to the next.
 */
const lstatsOfComputation = new WeakMap<object, Map<string, Observation | undefined>>();

/** Verdicts by key (every input but the filesystem), each answered while every path it relies on is as recorded. */
export class UnchangedVerdicts<T> {
  readonly #remembered = new Map<string, { readonly basis: readonly Relied[]; readonly verdict: T }>();

  constructor(private readonly capacity: number = MAX_REMEMBERED) {}

  /**
   * The verdict remembered under `key` if every path it relies on shows the same lstat now; undefined otherwise.
   * `computation` (a call's search trust) shares the lstats with the other verdicts checked in the same computation.
   */
  verdictOf(key: string, computation?: object): T | undefined {
    const remembered = this.#remembered.get(key);
    if (remembered === undefined) return undefined;
    let seen = computation === undefined ? undefined : lstatsOfComputation.get(computation);
    if (computation !== undefined && seen === undefined) lstatsOfComputation.set(computation, (seen = new Map<string, Observation | undefined>()));
    for (const { file, content, stats } of remembered.basis) {
      let now: Observation | undefined;
      if (seen?.has(file) === true) now = seen.get(file);
      else {
        now = lstatOf(file);
        seen?.set(file, now);
      }
      if (now === undefined || now === "missing" || !unchanged(stats, now, content)) {
        this.#remembered.delete(key);
        return undefined;
      }
    }
    return remembered.verdict;
  }

  /** Remembers `verdict` under `key` when `observed` is complete and settled; forgets the key's earlier verdict otherwise. */
  remember(key: string, observed: Observations, verdict: T, nowNs: bigint = wallClockNs()): void {
    if (!observed.settledAt(nowNs)) {
      this.#remembered.delete(key);
      return;
    }
    if (!this.#remembered.has(key) && this.#remembered.size >= this.capacity) this.#remembered.clear();
    this.#remembered.set(key, { basis: observed.reliedOn(), verdict });
  }
}
