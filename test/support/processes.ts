/**
 * Process checks for tests that assert no child outlives its call.
 */
import { readFileSync } from "node:fs";

/** True while the process exists and is not a zombie (a container's PID 1 may never reap it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
