/**
 * The server's side of the child host (child-host.ts): a StartLaunch that
 * hands each launch to a host process instead of forking the server.
 *
 * The host is started at the first launch and dropped after `idleMs` with no
 * unfinished launch (its channel is closed and it exits), so an idle server
 * holds no second Node process; the next launch starts a new one. A host that
 * dies takes its unfinished calls with it (they fail, their processes killed:
 * host-process.ts) and the next launch starts a new one. While no launch is
 * unfinished, neither the host nor its channel keeps the server's event loop
 * alive, so the server still exits when its stdin ends.
 */
import { fileURLToPath } from "node:url";
import { startLaunch, type LaunchRequest, type StartedLaunch } from "../launcher.js";
import type { Timers } from "../timers.js";
import { HostProcess } from "./host-process.js";

/** How long an idle host is kept for the next call: a host costs ~40 MiB, a restart ~50 ms of CPU. */
export const DEFAULT_HOST_IDLE_MS = 30_000;

/**
 * How long a launch waits for the host's first answer (`spawned`, or its end) before the host is
 * given up, counted from when the host reported ready (a new host's own start-up has its
 * allowance, HOST_START_ALLOWANCE_MS). A spawn takes milliseconds; the caller holds the lease lock meanwhile, so this stays below half the state lock's
 * stale period (no other process can judge the lock stale) and below a waiter's 5 s (an operator's
 * `torii target clear` waiting behind a wedged host still gets the lock).
 */
export const DEFAULT_SPAWN_DEADLINE_MS = 2_500;

export interface ChildHostOptions {
  /** The host's entry file; by default child-host.js beside this module (also in the server's bundle). */
  readonly hostFile?: string;
  readonly idleMs?: number;
  /** How long a launch waits for the host's first answer before the host is killed (DEFAULT_SPAWN_DEADLINE_MS). */
  readonly spawnDeadlineMs?: number;
  /** How long a new host may take to report ready before that deadline runs (HOST_START_ALLOWANCE_MS). */
  readonly startAllowanceMs?: number;
  readonly platform?: NodeJS.Platform;
  /** Called when a host is gone (it exited, idle or not, or was given up and killed), with its pid. */
  readonly onHostGone?: (pid: number | undefined) => void;
  /** The answer deadlines' timers; real ones when absent (tests pass a manual clock: timers.ts). */
  readonly timers?: Timers;
}

/** The file the server runs as its child host. */
export function defaultHostFile(): string {
  return fileURLToPath(new URL("./child-host.js", import.meta.url));
}

export class ChildHostClient {
  private host: HostProcess | undefined;
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly hostFile: string;
  private readonly idleMs: number;
  private readonly spawnDeadlineMs: number;
  private readonly startAllowanceMs: number | undefined;
  private readonly platform: NodeJS.Platform;
  private readonly onHostGone: ((pid: number | undefined) => void) | undefined;
  private readonly timers: Timers | undefined;

  constructor(options: ChildHostOptions = {}) {
    this.hostFile = options.hostFile ?? defaultHostFile();
    this.idleMs = options.idleMs ?? DEFAULT_HOST_IDLE_MS;
    this.spawnDeadlineMs = options.spawnDeadlineMs ?? DEFAULT_SPAWN_DEADLINE_MS;
    this.startAllowanceMs = options.startAllowanceMs;
    this.platform = options.platform ?? process.platform;
    this.onHostGone = options.onHostGone;
    this.timers = options.timers;
  }

  /** The current host's pid, if one runs (for tests and the bench). */
  get hostPid(): number | undefined {
    return this.host?.pid;
  }

  /** A StartLaunch through the host; resolves once the host reports the process spawned. */
  readonly start = (request: LaunchRequest): Promise<StartedLaunch> => {
    // Canceled already: launch() would answer without spawning, and so does startLaunch here; no host is needed.
    if (request.signal?.aborted === true) return startLaunch(request);
    return this.currentHost().launch(this.nextId++, request);
  };

  /** Closes the channel to the host, which then aborts what it still runs and exits. */
  close(): void {
    clearTimeout(this.idleTimer);
    this.host?.disconnect();
    this.host = undefined;
  }

  private currentHost(): HostProcess {
    if (this.host?.alive === true) return this.host;
    this.host = new HostProcess(
      this.hostFile,
      {
        onBusyChange: (host) => {
          this.onBusyChange(host);
        },
        onGone: (host) => {
          if (this.host === host) this.host = undefined;
          this.onHostGone?.(host.pid);
        },
      },
      this.platform,
      this.spawnDeadlineMs,
      this.startAllowanceMs,
      this.timers,
    );
    return this.host;
  }

  private onBusyChange(host: HostProcess): void {
    const busy = host.busy > 0;
    host.holdEventLoop(busy);
    if (host !== this.host) return;
    clearTimeout(this.idleTimer);
    if (busy) return;
    this.idleTimer = setTimeout(() => {
      if (this.host !== host || host.busy > 0) return;
      this.host = undefined;
      host.disconnect();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
