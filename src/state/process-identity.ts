/**
 * Which process wrote a pending approval, told apart from a later process that
 * got the same pid: the pid and, where the OS says it (Linux's
 * `/proc/<pid>/stat`), the process's start time in clock ticks since boot.
 * `torii approvals` uses it to refuse answering a question whose server is
 * gone (killed with SIGKILL, it could not withdraw the question itself).
 *
 * A pid means something only in its PID namespace: a client that runs the
 * server in a sandbox (a container, Flatpak) records a pid this terminal
 * cannot see. The namespace is recorded too (`/proc/self/ns/pid`), and a
 * server in another namespace (or known on one side only) counts as running:
 * its state cannot be told from here, and a question must not be made
 * unanswerable by a guess.
 */
import { readFileSync, readlinkSync } from "node:fs";

export interface ProcessIdentity {
  readonly pid: number;
  /** Start time in clock ticks since boot (decimal text); absent where the OS does not tell. */
  readonly started?: string | undefined;
  /** The PID namespace (`pid:[4026531836]`); absent where the OS does not tell. */
  readonly namespace?: string | undefined;
}

/** This process's PID namespace, or undefined where /proc does not say. */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return undefined;
  }
}

/** Field 22 of /proc/<pid>/stat, counted from the first field after the command name's closing parenthesis (field 3). */
const START_TIME_AFTER_COMMAND = 22 - 3;

/** The start time of `pid`, or undefined when /proc does not say (not Linux, no such process, unreadable). */
function startTimeOf(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name may hold spaces and parentheses: the fields start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const started = fields[START_TIME_AFTER_COMMAND];
  return started !== undefined && /^[0-9]+$/.test(started) ? started : undefined;
}

/** This process's identity. */
export function currentProcessIdentity(): ProcessIdentity {
  const started = startTimeOf(process.pid);
  const namespace = pidNamespace();
  return { pid: process.pid, ...(started === undefined ? {} : { started }), ...(namespace === undefined ? {} : { namespace }) };
}

/**
 * Whether the process `identity` names still runs: `gone` when no process has
 * its pid, or its start time was recorded and is no longer the pid's (the pid
 * was reused, or /proc no longer shows it); `running` otherwise (without a
 * recorded start time a reused pid cannot be told apart; a pid of another or
 * an unknown PID namespace cannot be probed from here).
 */
export function processState(identity: ProcessIdentity, here: string | undefined = pidNamespace()): "running" | "gone" {
  // 0 and negative pids name process groups for kill(): never probe those.
  if (!Number.isSafeInteger(identity.pid) || identity.pid < 1) return "gone";
  // Both unknown (no /proc: no PID namespaces either) is the one mismatch that can still be probed.
  if (identity.namespace !== here) return "running";
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return "gone";
  }
  if (identity.started === undefined) return "running";
  return startTimeOf(identity.pid) === identity.started ? "running" : "gone";
}
