/**
 * Which process wrote a pending approval, told apart from a later process that
 * got the same pid: the pid and, where the OS says it (Linux's
 * `/proc/<pid>/stat`), the process's start time in clock ticks since boot.
 * `torii approvals` uses it to refuse answering a question whose server is
 * gone (killed with SIGKILL, it could not withdraw the question itself).
 */
import { readFileSync } from "node:fs";

export interface ProcessIdentity {
  readonly pid: number;
  /** Start time in clock ticks since boot (decimal text); absent where the OS does not tell. */
  readonly started?: string | undefined;
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
  return started === undefined ? { pid: process.pid } : { pid: process.pid, started };
}

/**
 * Whether the process `identity` names still runs: `gone` when no process has
 * its pid, or its start time was recorded and is no longer the pid's (the pid
 * was reused, or /proc no longer shows it); `running` otherwise (without a
 * recorded start time a reused pid cannot be told apart).
 */
export function processState(identity: ProcessIdentity): "running" | "gone" {
  // 0 and negative pids name process groups for kill(): never probe those.
  if (!Number.isSafeInteger(identity.pid) || identity.pid < 1) return "gone";
  try {
    process.kill(identity.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return "gone";
  }
  if (identity.started === undefined) return "running";
  return startTimeOf(identity.pid) === identity.started ? "running" : "gone";
}
