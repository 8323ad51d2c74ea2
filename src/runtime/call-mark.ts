/**
 * Linux: the descendants of a call that left its process group and closed
 * their output (`setsid` and a daemonising double fork with stdio on
 * /dev/null): neither the group kill nor the pipe holders' search
 * (pipe-holders.ts) finds them, and they reparent to init (or the nearest
 * subreaper) once their parent exits, so no process tree leads to them either.
 * Without root there is no cgroup to put a call in, and Node cannot make its
 * child host a subreaper (`prctl(PR_SET_CHILD_SUBREAPER)` needs native code).
 *
 * What every descendant does keep, unless it replaces it on purpose, is the
 * environment it inherited. The launcher gives each child one extra variable,
 * `TORII_CALL_MARK`, a random 128-bit value of its own, and when the child has
 * exited it SIGKILLs every process of this user whose initial environment
 * (`/proc/<pid>/environ`) holds that mark and that started no earlier than the
 * child (a pid reused by an older process is never hit).
 *
 * The search is kept to the processes started since the child, found by pid:
 * Linux hands pids out in rising order (wrapping at pid_max), and
 * `/proc/sys/kernel/ns_last_pid` is the last one handed out. When it is still
 * the child's own pid, no process or thread has been started since and nothing
 * is read; when a few have, only their pids are looked at; the whole of /proc
 * is listed only when many were. A plain call so costs one small read instead
 * of a read of every process's /proc files (measured: 1.4 ms with 78
 * processes, about 10 ms on a desktop's 500).
 *
 * Not found: a descendant started with an empty or rebuilt environment (`env
 * -i`, `execve` with its own list) or that overwrote its environment block in
 * memory; one that made itself non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`, as
 * ssh-agent does, or a set-user-ID program): only root may read its environ,
 * so the search passes it by (it could still be signalled); one started after
 * the program cycled through the whole pid space
 * during its call (tens of thousands of forks); one in the middle of an
 * `execve` when the search's last round reads it (/proc/<pid>/environ reads
 * empty from the kernel's switch to the new program's memory until it writes
 * the environment there); processes of another user
 * (their environ is unreadable, nor could they be signalled); macOS and
 * Windows (no /proc).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { startTimeOf } from "./proc-stat.js";

/** The variable the launcher adds to each child's environment on Linux. */
export const CALL_MARK_VARIABLE = "TORII_CALL_MARK";

/** The bytes of one mark: 128 random bits. */
const MARK_BYTES = 16;

/**
 * Marks are cut from a pool drawn 64 at a time, as Node's own `randomUUID` keeps its entropy: one
 * `randomBytes` per launch was 0.1-0.2 ms of the child host's CPU and about 10 page faults (OpenSSL's
 * generator state and locks, written again after every `fork`). Each mark is still 128 bits of the
 * system's CSPRNG and used once; the bytes of a mark handed out are zeroed. Knowing a pooled mark
 * gives nothing: the pool is in the memory of the process that draws it (the server, for the child
 * host's launches: a host that dies before reporting a spawn leaves the server the mark to search by,
 * child-host/host-leftovers.ts; the operator CLI for its own), which only a process allowed to ptrace
 * it could read (and that process can already signal whatever it can), and a mark only ever selects
 * processes of this user started after the call's child (or its host), to be killed.
 */
const MARK_POOL_BYTES = MARK_BYTES * 64;
let markPool = Buffer.alloc(0);
let markPoolUsed = 0;

/** A new mark for one launch (Linux only: elsewhere nothing could look for it). */
export function newCallMark(platform: NodeJS.Platform): string | undefined {
  if (platform !== "linux") return undefined;
  if (markPoolUsed + MARK_BYTES > markPool.length) {
    markPool = randomBytes(MARK_POOL_BYTES);
    markPoolUsed = 0;
  }
  const start = markPoolUsed;
  markPoolUsed += MARK_BYTES;
  const mark = markPool.toString("hex", start, markPoolUsed);
  markPool.fill(0, start, markPoolUsed);
  return mark;
}

/** How many times the search is repeated while it still finds some: a marked process may fork while one search runs. */
const ROUNDS = 3;

/** The call's child: its pid and its start time (clock ticks since boot, /proc/<pid>/stat field 22). */
export interface MarkedChild {
  readonly pid: number;
  readonly startedAt: number;
}

/** One mark to search for: the variable that holds it and its value. */
export interface Mark {
  readonly variable: string;
  readonly value: string;
}

/** Where a search looks, when not at the launcher's defaults. */
export interface MarkSearch {
  /**
   * Every listed process rather than the pids handed out since the child's: a child host lives across many calls,
   * and the pids may have wrapped past its own while it ran (a process started for it since may have a lower pid).
   */
  readonly everyProcess?: boolean;
  /** Lists the processes in /proc (`listedProcesses`; a test counts the listings through it). */
  readonly listProcesses?: () => readonly number[];
}

/**
 * SIGKILLs every process but this one, started no earlier than `child`, whose environment holds the call's `mark`;
 * returns their pids. Reads only the pids handed out since the child's (see above), unless told otherwise.
 */
export function killMarkedProcesses(mark: string, child: MarkedChild, search: MarkSearch = {}): number[] {
  const callMark = { variable: CALL_MARK_VARIABLE, value: mark };
  return killProcessesMarkedWith([callMark], child, search).get(callMark) ?? [];
}

/**
 * SIGKILLs every process but this one, started no earlier than `child`, whose environment holds any of `marks`, in one
 * search (each process's files are read once per round, whatever the number of marks); returns, for each of `marks`, the
 * pids of the processes that held it (a process that held two is under both).
 */
export function killProcessesMarkedWith(marks: readonly Mark[], child: MarkedChild, search: MarkSearch = {}): Map<Mark, number[]> {
  const entries = markEntries(marks);
  const listProcesses = search.listProcesses ?? listedProcesses;
  const candidates = search.everyProcess === true ? listProcesses : () => pidsSince(child.pid, lastPidHandedOut(), listProcesses);
  const killedBy = marks.map((): number[] => []);
  const killed = new Set<number>();
  for (let round = 0; round < ROUNDS; round += 1) {
    let found = false;
    for (const { pid, held } of killRound(entries, child, candidates())) {
      // A process killed in an earlier round may not have died yet: it is not counted again.
      if (killed.has(pid)) continue;
      killed.add(pid);
      found = true;
      for (const index of held) killedBy[index]?.push(pid);
    }
    if (!found) break;
  }
  return new Map(marks.map((mark, index) => [mark, killedBy[index] ?? []]));
}

/** The environment entries searched for (`VARIABLE=value`), each with the indexes of the marks it stands for. */
interface MarkEntries {
  readonly indexes: ReadonlyMap<string, readonly number[]>;
  /** The entries' lengths in bytes: an entry of another length is not decoded. */
  readonly lengths: ReadonlySet<number>;
}

function markEntries(marks: readonly Mark[]): MarkEntries {
  const indexes = new Map<string, number[]>();
  marks.forEach(({ variable, value }, index) => {
    const entry = `${variable}=${value}`;
    indexes.set(entry, [...(indexes.get(entry) ?? []), index]);
  });
  return { indexes, lengths: new Set([...indexes.keys()].map((entry) => Buffer.byteLength(entry))) };
}

/**
 * Up to this many pids handed out since the child are probed one by one (a `stat` of /proc/<pid>, about 4 µs);
 * past it /proc is listed (about 60 µs for 70 processes).
 */
const PROBED_ONE_BY_ONE = 16;

/** The last pid handed out in this pid namespace, or undefined when it cannot be read. */
function lastPidHandedOut(): number | undefined {
  try {
    const value = Number(readFileSync("/proc/sys/kernel/ns_last_pid", "utf8").trim());
    return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pids that may belong to processes started since `firstPid` was handed out (itself included): those up to the
 * last pid handed out, past a wrap too. Every process when the last pid cannot be read.
 */
export function pidsSince(firstPid: number, lastPid: number | undefined, listProcesses: () => readonly number[]): readonly number[] {
  if (lastPid === undefined) return listProcesses();
  if (lastPid >= firstPid && lastPid - firstPid < PROBED_ONE_BY_ONE) {
    return Array.from({ length: lastPid - firstPid + 1 }, (_, index) => firstPid + index);
  }
  // Many since, or pids wrapped at pid_max (the last one is below the child's): the listed ones in that range.
  const since = lastPid >= firstPid ? (pid: number) => pid >= firstPid && pid <= lastPid : (pid: number) => pid >= firstPid || pid <= lastPid;
  return listProcesses().filter(since);
}

/** The pids listed in /proc; none when it cannot be read. */
export function listedProcesses(): readonly number[] {
  try {
    return readdirSync("/proc")
      .filter((entry) => /^\d+$/u.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

function killRound(entries: MarkEntries, child: MarkedChild, candidates: readonly number[]): { pid: number; held: readonly number[] }[] {
  const killed: { pid: number; held: readonly number[] }[] = [];
  for (const pid of candidates) {
    if (pid === process.pid || statSync(`/proc/${String(pid)}`, { throwIfNoEntry: false }) === undefined) continue;
    const entry = String(pid);
    // A process already running when the child started cannot be its descendant (a pid reused after a wrap).
    if ((startTimeOf(entry) ?? -1) < child.startedAt) continue;
    const held = marksHeld(entry, entries);
    if (held.length === 0) continue;
    // A thread's id opens /proc/<tid> too (its process's environment): its process is counted by its own pid.
    if (!leadsItsThreadGroup(entry)) continue;
    try {
      process.kill(pid, "SIGKILL");
      killed.push({ pid, held });
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
  return killed;
}

/** Whether `pid` is a process, not another thread of one (the Tgid of /proc/<pid>/status is its own id). */
function leadsItsThreadGroup(pid: string): boolean {
  try {
    return new RegExp(`^Tgid:\\s+${pid}$`, "mu").test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

/** The indexes of the marks whose whole entry (between NULs) is in the process's initial environment. */
function marksHeld(pid: string, entries: MarkEntries): number[] {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return [];
  }
  const held = new Set<number>();
  for (let start = 0; start < environ.length;) {
    const nul = environ.indexOf(0, start);
    const end = nul === -1 ? environ.length : nul;
    // Latin-1 maps each byte to one character, so only the entry's exact (ASCII) bytes decode to it.
    if (entries.lengths.has(end - start)) for (const index of entries.indexes.get(environ.toString("latin1", start, end)) ?? []) held.add(index);
    start = end + 1;
  }
  return [...held];
}
