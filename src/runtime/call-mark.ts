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
 * Not found: a descendant started with an empty or rebuilt environment (`env
 * -i`, `execve` with its own list) or that overwrote its environment block in
 * memory; processes of another user (their environ is unreadable, nor could
 * they be signalled); macOS and Windows (no /proc).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { startTimeOf } from "./pipe-holders.js";

/** The variable the launcher adds to each child's environment on Linux. */
export const CALL_MARK_VARIABLE = "TORII_CALL_MARK";

/** A new mark for one launch (Linux only: elsewhere nothing could look for it). */
export function newCallMark(platform: NodeJS.Platform): string | undefined {
  return platform === "linux" ? randomBytes(16).toString("hex") : undefined;
}

/** How many times the search is repeated while it still finds some: a marked process may fork while one search runs. */
const ROUNDS = 3;

/**
 * SIGKILLs every process but this one, started no earlier than `startedAt`, whose environment holds `mark`;
 * returns their pids. About 20 µs per process listed in /proc (1.4 ms with 78 processes), once per call.
 */
export function killMarkedProcesses(mark: string, startedAt: number): number[] {
  const needle = Buffer.from(`${CALL_MARK_VARIABLE}=${mark}`);
  const killed: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // A process killed in an earlier round may not have died yet: it is not counted again.
    const found = killRound(needle, startedAt).filter((pid) => !killed.includes(pid));
    killed.push(...found);
    if (found.length === 0) break;
  }
  return killed;
}

function killRound(needle: Buffer, startedAt: number): number[] {
  const killed: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return killed;
  }
  for (const entry of entries) {
    if (!/^\d+$/u.test(entry) || Number(entry) === process.pid) continue;
    // A process already running when the child started cannot be its descendant.
    if ((startTimeOf(entry) ?? -1) < startedAt) continue;
    if (!environmentHolds(entry, needle)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      killed.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
  return killed;
}

function environmentHolds(pid: string, needle: Buffer): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  for (let at = environ.indexOf(needle); at !== -1; at = environ.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    // The whole entry: at the start of the block or after a NUL, and ending there.
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) return true;
  }
  return false;
}
