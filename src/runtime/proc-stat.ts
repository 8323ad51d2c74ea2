/**
 * Fields of `/proc/<pid>/stat` (Linux), read for the searches that find a call's processes
 * (`call-mark.ts`, `pipe-holders.ts`, `child-host/host-leftovers.ts`). One reader so they all
 * skip the command name the same way: it may hold spaces and parentheses, so the fields start
 * after its last ")".
 */
import { readFileSync } from "node:fs";

/** The fields after the command name (field 3, the state, is index 0), or undefined when unreadable. */
function fieldsAfterCommand(pid: string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Field 22 (start time in clock ticks since boot); undefined when /proc does not say. */
export function startTimeOf(pid: string): number | undefined {
  const value = Number(fieldsAfterCommand(pid)?.[19]);
  return Number.isFinite(value) ? value : undefined;
}

/** Field 4 (the parent's pid); undefined when /proc does not say. */
export function parentOf(pid: number): number | undefined {
  const value = Number(fieldsAfterCommand(String(pid))?.[1]);
  return Number.isSafeInteger(value) ? value : undefined;
}
