/**
 * Linux: the processes that still hold a child's output pipes after it exited.
 *
 * A descendant that left the child's process group (`setsid`, a daemonising
 * double fork, `spawn(..., {detached: true})`) is out of reach of the group
 * kill, yet it often keeps the stdout or stderr it inherited. The launcher
 * notes which kernel objects the child's descriptors 1 and 2 are
 * (`outputPipesOf`, read from `/proc/<pid>/fd` just after the spawn, when the
 * child is certainly alive), and when the pipes are still open once the
 * child's exit has drained, it kills every process holding one of them
 * (`killPipeHolders`): no process outlives its call through its output pipes.
 *
 * Only a process started no earlier than the child is killed: a descendant
 * starts after it, while a process that was already running and was handed
 * the descriptor over a Unix socket (an operator's ssh ControlMaster, which
 * `gcloud compute ssh` or `az ssh` may reach through its mux client, or a tmux
 * server) is not the call's, and killing it would end the operator's other
 * sessions.
 *
 * What a process of another user holds cannot be read, nor killed; a
 * descendant that escaped and closed its output is not found this way.
 */
import { readdirSync, readlinkSync } from "node:fs";
import { startTimeOf } from "./proc-stat.js";

/** What identifies a child's output pipes, and when the child started. */
export interface OutputPipes {
  /** The link texts (`socket:[123]`, `pipe:[456]`) of the child's descriptors 1 and 2. */
  readonly links: readonly string[];
  /** The child's start time (clock ticks since boot, /proc/<pid>/stat field 22). */
  readonly startedAt: number;
}

const NONE: OutputPipes = { links: [], startedAt: Number.POSITIVE_INFINITY };

/** `pid`'s output pipes and start time; none off Linux or when unreadable. */
export function outputPipesOf(pid: number | undefined, platform: NodeJS.Platform): OutputPipes {
  if (platform !== "linux" || pid === undefined) return NONE;
  const startedAt = startTimeOf(String(pid));
  if (startedAt === undefined) return NONE;
  const links: string[] = [];
  for (const fd of [1, 2]) {
    const link = linkOf(`/proc/${String(pid)}/fd/${String(fd)}`);
    if (link !== undefined && /^(?:socket|pipe):\[\d+\]$/u.test(link)) links.push(link);
  }
  return { links, startedAt };
}

/** SIGKILLs every process but this one, started no earlier than the child, whose open descriptors include one of its pipes; returns their pids. */
export function killPipeHolders({ links, startedAt }: OutputPipes): number[] {
  if (links.length === 0) return [];
  const wanted = new Set(links);
  const killed: number[] = [];
  for (const entry of entries("/proc")) {
    if (!/^\d+$/u.test(entry) || Number(entry) === process.pid) continue;
    if (!entries(`/proc/${entry}/fd`).some((fd) => wanted.has(linkOf(`/proc/${entry}/fd/${fd}`) ?? ""))) continue;
    // A process already running when the child started cannot be its descendant (nor a pid reused by one).
    if ((startTimeOf(entry) ?? -1) < startedAt) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      killed.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to signal.
    }
  }
  return killed;
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function linkOf(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}
