/**
 * The child host: a small Node process the MCP server starts and that starts
 * the server's child processes for it, through the launcher (the one place a
 * process is run: no shell, stdin closed, process group, cap, timeout, kill).
 *
 * Why: Node forks for every spawn, and after a fork every page the forking
 * process writes takes a copy-on-write fault. Forked from this small process
 * instead of the server, a call costs the server a few faults rather than
 * hundreds, and the server's event loop never stops for a fork.
 *
 * It reads nothing but its IPC channel: no file (but /proc/self/fd at start,
 * inherited-descriptors.ts), no environment (it is started with an empty one but, on
 * Linux, its own TORII_HOST_MARK, which it never reads),
 * no argument. Each launch carries the mark the server drew for it (call-mark.ts), which the
 * launcher puts in the program's environment: if this host dies before it reports the spawn,
 * the server still finds the program by it. When the channel closes (the server exited
 * or dropped it: idle, or killed) every running launch is aborted (its process
 * group terminated as on a cancellation) and the host exits once they settled.
 */
import { beginLaunch, LaunchError, type LaunchResult } from "../launcher.js";
import { parseToHost, type FromHost, type HostLaunchRequest } from "./protocol.js";
import { closeInheritedDescriptors, inheritedUmask } from "./inherited-descriptors.js";
import { keepHostUnoptimised } from "./host-tiering.js";

keepHostUnoptimised();

// Before anything is started: no descriptor of the client reaches a child, and files the CLIs create
// are never group- or world-writable, whatever umask the client left (the operator's stricter one stays).
closeInheritedDescriptors((process.channel as { fd?: number } | undefined)?.fd);
process.umask(inheritedUmask() | 0o022);

const running = new Map<number, AbortController>();
let disconnected = false;

function send(message: FromHost): void {
  if (process.connected) process.send?.(message);
}

function start(id: number, request: HostLaunchRequest): void {
  if (running.has(id)) return;
  const abort = new AbortController();
  running.set(id, abort);
  const started = beginLaunch({ ...request, signal: abort.signal });
  if (started.pid !== undefined) send({ type: "spawned", id, pid: started.pid });
  started.running.then(
    (result: LaunchResult) => {
      settle(id, { type: "result", id, result });
    },
    (error: unknown) => {
      const failed = error instanceof LaunchError ? error : new LaunchError(request.executable, "ERR_SPAWN", "the process could not be started");
      settle(id, { type: "failed", id, code: failed.code, detail: failed.detail });
    },
  );
}

function settle(id: number, message: FromHost): void {
  running.delete(id);
  send(message);
  if (disconnected && running.size === 0) process.exit(0);
}

process.on("message", (raw) => {
  const message = parseToHost(raw);
  if (message === undefined) return;
  if (message.type === "launch") start(message.id, message.request);
  else running.get(message.id)?.abort();
});

/** Aborts every running launch (their process groups are terminated) and exits once they settled. */
function windDown(): void {
  disconnected = true;
  if (running.size === 0) process.exit(0);
  for (const abort of running.values()) abort.abort();
}

process.on("disconnect", windDown);
// A terminal's Ctrl-C, Ctrl-\ or hang-up reaches the server's whole process group: the host stays
// until the server closes the channel, so it never dies with launches only it knows of. SIGTERM
// winds down the same way.
for (const signal of process.platform === "win32" ? (["SIGINT", "SIGHUP"] as const) : (["SIGINT", "SIGHUP", "SIGQUIT"] as const)) {
  process.on(signal, () => undefined);
}
process.on("SIGTERM", windDown);
// Loaded and listening: the server's answer deadlines run from here, not from the host's own start-up.
send({ type: "ready" });
