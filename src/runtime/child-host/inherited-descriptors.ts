/**
 * Descriptors and the umask the host inherited and would hand on. Whatever started the MCP
 * server (the agent's client) may leave descriptors open without close-on-exec:
 * its log, an internal pipe or socket. The server and the host inherit them,
 * and every process the host starts would too, so a CLI, a plugin or a command
 * it runs could write into the client. Node opens its own descriptors
 * close-on-exec, so the ones without that flag above stderr are inherited ones:
 * the host closes them at start, before it starts anything. Linux only (the
 * flags are read from /proc/self/fdinfo); elsewhere nothing is closed.
 */
import { closeSync, readdirSync, readFileSync } from "node:fs";

const O_CLOEXEC = 0o2000000;

/** Closes every descriptor above 2 that lacks close-on-exec, except `keep` (the IPC channel); returns those closed. */
export function closeInheritedDescriptors(keep: number | undefined): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const closed: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2 || fd === keep) continue;
    let flags: number;
    try {
      const match = /^flags:\s+([0-7]+)$/mu.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (match === null) continue;
      flags = Number.parseInt(match[1] as string, 8);
    } catch {
      continue; // the directory's own descriptor, already closed
    }
    if ((flags & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Closed meanwhile: nothing to hand on.
    }
  }
  return closed;
}

/**
 * The umask the host was started with, read from /proc/self/status (reading it
 * with `process.umask()` writes it twice, racing other threads); 022 where
 * /proc does not say.
 */
export function inheritedUmask(): number {
  try {
    const match = /^Umask:\s+([0-7]+)$/mu.exec(readFileSync("/proc/self/status", "utf8"));
    if (match !== null) return Number.parseInt(match[1] as string, 8);
  } catch {
    // No /proc: the default below.
  }
  return 0o022;
}
