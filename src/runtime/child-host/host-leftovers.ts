/**
 * What a child host that is gone may have left running for its unfinished
 * launches, found and killed from the server.
 *
 * A launch the host reported has a pid: its process group is killed. A launch
 * it had not reported (the host died, or was given up, between its spawn and
 * its `spawned` message, or before it spawned at all) has none, and the
 * program it may have started leads its own process group, out of reach of
 * anything the server knows by pid. Two searches find it on Linux:
 *
 * - Every launch carries a mark the server drew (call-mark.ts; the host puts
 *   it in the program's environment). Whatever holds the mark of a launch that
 *   was not finished, and started after the host, is killed: the program and
 *   every descendant that kept its environment, reported or not, in its group
 *   or not. The mark is 128 random bits the program cannot learn for another
 *   call, so it can neither aim another call's kill at a process nor, short of
 *   rebuilding its environment, dodge its own.
 * - A child the host forked but that is not yet executing the program holds a
 *   copy of the host's environment, not the call's mark, until its `execve`.
 *   The host is started with a mark of its own in its environment (its only
 *   variable, which it never reads; the server draws it): whatever holds that
 *   mark but the host is such a fork, and is killed, whether the host died or
 *   was given up. That search runs to its end before the call marks' one: a
 *   fork read while it executes its program holds neither mark (from the
 *   kernel's switch to the new memory until it writes the program's
 *   environment, /proc/<pid>/environ reads empty), and it holds its call's
 *   by the time the later search reads it again (not found: one whose
 *   `execve` stalls in that stretch through both searches, on a page fault
 *   from a slow file system say). Searched for together, the marks read such
 *   a fork once in a round that may be the last. A host that is gone forks
 *   nothing more. The unfinished launches' marks are searched for together
 *   (one listing of /proc per round, whatever their number).
 * - A host that is given up while it still runs is stopped first (SIGSTOP: it
 *   starts nothing more) and its children are killed, with their groups,
 *   before the host is (a child that replaced its environment at its own
 *   `execve` is still the host's child).
 *
 * Each search lists every process and keeps those started no earlier than
 * the host (by start time), not only the pids handed out since the host's as
 * the launcher's search at a program's exit does: a host lives across many
 * calls, and the pids may have wrapped past its own while it ran. Only this
 * rare path pays for the listing, and one search of the call marks serves any
 * number of unfinished launches.
 *
 * macOS and Windows have no /proc: a reported launch's group (Windows: its
 * tree) is killed as before, and the error of an unreported one says the
 * process may have started and could not be found.
 */
import { CALL_MARK_VARIABLE, killProcessesMarkedWith, listedProcesses, newCallMark, type Mark } from "../call-mark.js";
import { parentOf, startTimeOf } from "../proc-stat.js";

/** The variable that holds the host's own mark in its environment (Linux). */
export const HOST_MARK_VARIABLE = "TORII_HOST_MARK";

/** A new host's environment entry: its mark (Linux only; nothing elsewhere). */
export function hostMarkEntry(platform: NodeJS.Platform): { readonly mark: string | undefined; readonly env: Readonly<Record<string, string>> } {
  const mark = newCallMark(platform);
  return { mark, env: mark === undefined ? {} : { [HOST_MARK_VARIABLE]: mark } };
}

/** The host process as the searches need it: its pid, its start time (Linux) to bound them, and its mark. */
export interface HostIdentity {
  readonly pid: number;
  readonly startedAt: number;
  readonly mark: string | undefined;
}

/** The host's identity, read just after its spawn (Linux only; undefined elsewhere or when unreadable). */
export function hostIdentity(pid: number | undefined, platform: NodeJS.Platform, mark: string | undefined): HostIdentity | undefined {
  if (platform !== "linux" || pid === undefined) return undefined;
  const startedAt = startTimeOf(String(pid));
  return startedAt === undefined ? undefined : { pid, startedAt, mark };
}

/**
 * Stops a host that still runs and SIGKILLs its children and their process groups (Linux; the
 * caller then kills the host). Returns the children's pids. Nothing off Linux.
 */
export function stopHostAndKillChildren(host: HostIdentity | undefined): number[] {
  if (host === undefined) return [];
  try {
    process.kill(host.pid, "SIGSTOP");
  } catch {
    // Already gone: its children were reparented, and only the marks find them.
    return [];
  }
  const killed: number[] = [];
  // Every process, not the pids since the host's: they may have wrapped past it while it ran.
  for (const pid of listedProcesses()) {
    // readdir("/proc") lists thread-group leaders only, so each child is seen once, by its own pid.
    if (pid === host.pid || parentOf(pid) !== host.pid) continue;
    // The group first (a child that already called setsid leads one), then the child itself (one that had not).
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // No such group yet, or gone meanwhile.
      }
    }
    killed.push(pid);
  }
  return killed;
}

/** What the searches of the marks killed: the host's forks, and for each unfinished launch the processes carrying its mark. */
export interface MarkedLeftovers {
  readonly forks: readonly number[];
  readonly byLaunch: readonly (readonly number[])[];
}

/**
 * SIGKILLs (Linux) the processes started since the host that hold its mark (its forks that do not yet run their program;
 * the host itself holds it too and is killed again if still there, but is left out of `forks`), then, in one search, those that hold one of `launchMarks` (the unfinished launches': their
 * programs and the descendants that kept their environment). The host's mark is searched for first and on its own: a
 * fork in the middle of its `execve` holds neither mark when read, and its call's when read again later (see above).
 * `byLaunch` follows `launchMarks` (nothing for an undefined mark). Nothing off Linux. `listProcesses` lists /proc (a
 * test counts the listings, and stands a fork's `execve` between the searches).
 */
export function killMarkedLeftovers(
  host: HostIdentity | undefined,
  launchMarks: readonly (string | undefined)[],
  listProcesses: () => readonly number[] = listedProcesses,
): MarkedLeftovers {
  if (host === undefined) return { forks: [], byLaunch: launchMarks.map(() => []) };
  const search = { everyProcess: true, listProcesses };
  // The host's mark first, its search run to its end (see above); then every launch's, in one search.
  const hostMark = host.mark === undefined ? undefined : { variable: HOST_MARK_VARIABLE, value: host.mark };
  const forks = hostMark === undefined ? [] : (killProcessesMarkedWith([hostMark], host, search).get(hostMark) ?? []);
  const launches = launchMarks.map((value) => (value === undefined ? undefined : { variable: CALL_MARK_VARIABLE, value }));
  const marks = launches.filter((mark): mark is Mark => mark !== undefined);
  const killed = marks.length === 0 ? new Map<Mark, number[]>() : killProcessesMarkedWith(marks, host, search);
  return {
    forks: forks.filter((pid) => pid !== host.pid),
    byLaunch: launches.map((mark) => (mark === undefined ? [] : (killed.get(mark) ?? []))),
  };
}
