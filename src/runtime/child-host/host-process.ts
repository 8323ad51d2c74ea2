/**
 * One running child host, seen from the server: the Node process, its IPC
 * channel, and the launches it has not finished. Each launch settles exactly
 * once; whatever the host sends after that, or for an id it was never given,
 * is ignored.
 *
 * Fail closed: a message that is not well formed, an exit or a start failure
 * of the host ends every unfinished launch with ChildHostError, after what it
 * may have left running was killed from here: the process groups it reported
 * (the server knows their pids) and, on Linux, every process carrying an
 * unfinished launch's mark, which the server drew and sent with the launch,
 * and the children of a host given up while it still ran (host-leftovers.ts).
 * The error says what was done. No launch is ever sent again: a call runs once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { DEFAULT_KILL_GRACE_MS, killProcessTree, LaunchError, redactResult, type LaunchRequest, type LaunchResult, type StartedLaunch } from "../launcher.js";
import { newCallMark } from "../call-mark.js";
import { NO_REDACTION } from "../redaction.js";
import { MAX_TIMER_MS, SYSTEM_TIMERS, type CancelTimer, type Timers } from "../timers.js";
import { hostIdentity, hostMarkEntry, killMarkedLeftovers, stopHostAndKillChildren, type HostIdentity } from "./host-leftovers.js";
import { HOST_V8_FLAGS } from "./host-tiering.js";
import { ChildHostError, hostRequest, parseFromHost, type FromHost, type ToHost } from "./protocol.js";

interface Pending {
  readonly request: LaunchRequest;
  /** The mark the server drew for the launch (Linux), to find its processes if the host dies. */
  readonly mark: string | undefined;
  pid: number | undefined;
  started: boolean;
  readonly start: { resolve: (started: StartedLaunch) => void; reject: (error: Error) => void };
  readonly run: { resolve: (result: LaunchResult | Promise<LaunchResult>) => void; reject: (error: Error) => void };
  readonly running: Promise<LaunchResult>;
  readonly stopCancel: () => void;
  /** Fires when the host owes an answer (`spawned`, then the end of the run) past its deadline. */
  deadline: CancelTimer | undefined;
}

export interface HostEvents {
  /** The number of unfinished launches changed (the client refs, unrefs and times the host's idleness). */
  readonly onBusyChange: (host: HostProcess) => void;
  /** The host is gone (exited, failed to start, or was given up); it takes no more launches. */
  readonly onGone: (host: HostProcess) => void;
}

/** The host's environment: nothing of the server's, only what Node needs to start on Windows (the constructor adds, on Linux, the host's mark). */
export function hostEnvironment(serverEnv: NodeJS.ProcessEnv, platform: NodeJS.Platform): Record<string, string> {
  const systemRoot = serverEnv.SystemRoot;
  return platform === "win32" && systemRoot !== undefined ? { SystemRoot: systemRoot } : {};
}

/**
 * How long a new host may take to start (Node and its modules: well under a second when quiet,
 * seconds on a loaded machine) before it reports ready; the answer deadline of each launch runs
 * from then. A host that never gets ready is given up after this allowance and the answer deadline.
 */
export const HOST_START_ALLOWANCE_MS = 10_000;

/** A message from the host about one launch. */
type LaunchAnswer = Exclude<FromHost, { readonly type: "ready" }>;

export class HostProcess {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private gone = false;
  private ready = false;
  /** Its pid and start time (Linux), which bound the searches for what it left behind. */
  private readonly identity: HostIdentity | undefined;

  constructor(
    hostFile: string,
    private readonly events: HostEvents,
    private readonly platform: NodeJS.Platform,
    private readonly spawnDeadlineMs: number,
    private readonly startAllowanceMs: number = HOST_START_ALLOWANCE_MS,
    /** The answer deadlines' timers: a test's manual clock fires them on an event (timers.ts). */
    private readonly timers: Timers = SYSTEM_TIMERS,
  ) {
    // Not the server's execArgv (only the host's own fixed V8 flags) and an empty environment: the server's
    // NODE_OPTIONS, --inspect or .env values never reach the host.
    // Linux: its own mark, which its forks hold until they execute their program (host-leftovers.ts).
    const hostMark = hostMarkEntry(platform);
    this.child = spawn(process.execPath, [...HOST_V8_FLAGS, hostFile], {
      stdio: ["ignore", "ignore", "inherit", "ipc"],
      env: { ...hostEnvironment(process.env, platform), ...hostMark.env },
      shell: false,
      windowsHide: true,
    });
    this.identity = hostIdentity(this.child.pid, platform, hostMark.mark);
    this.child.on("message", (message) => {
      this.onMessage(message);
    });
    this.child.on("error", (error: NodeJS.ErrnoException) => {
      this.abandon(`the child host could not be started (${error.code ?? error.name})`);
    });
    this.child.on("exit", (code, signal) => {
      this.abandon(`the child host exited (${signal ?? `exit ${String(code)}`})`);
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get busy(): number {
    return this.pending.size;
  }

  get alive(): boolean {
    return !this.gone;
  }

  /**
   * Sends one launch; resolves when the host reports the process spawned (or canceled before it started).
   * A host that answers neither within `spawnDeadlineMs` is given up (killed, with every group it reported),
   * so a wedged host never keeps a caller (and the lease lock it holds) waiting; so is one that has not
   * reported the end of a spawned process by its timeout, kill grace and `spawnDeadlineMs` (a caller may
   * hold a lock for the whole run: the auth scope's, around a lifecycle command).
   */
  launch(id: number, request: LaunchRequest): Promise<StartedLaunch> {
    if (this.gone || !this.child.connected) return Promise.reject(new ChildHostError("the child host is gone; the call was not run"));
    return new Promise<StartedLaunch>((resolveStart, rejectStart) => {
      let run!: Pending["run"];
      const running = new Promise<LaunchResult>((resolve, reject) => {
        run = { resolve, reject };
      });
      // A failure of the run after the caller stopped waiting for it (its call already ended otherwise) is not an unhandled rejection.
      running.catch(() => undefined);
      const onAbort = (): void => {
        this.send({ type: "cancel", id });
      };
      request.signal?.addEventListener("abort", onAbort, { once: true });
      const stopCancel = (): void => request.signal?.removeEventListener("abort", onAbort);
      const start = { resolve: resolveStart, reject: rejectStart };
      // Drawn here, not in the host: a host that dies before it reports the spawn leaves the server this to search by.
      // Always a new one (never a caller's): a mark shared by two launches would kill one's processes with the other.
      const mark = newCallMark(this.platform);
      const pending: Pending = { request, mark, pid: undefined, started: false, start, run, running, stopCancel, deadline: undefined };
      // Before the host is ready its start-up is allowed for too (onReady then restarts the deadline).
      if (this.ready) this.expectAnswer(id, pending, this.spawnDeadlineMs, "did not answer");
      else this.expectAnswer(id, pending, this.startAllowanceMs + this.spawnDeadlineMs, "did not start and answer");
      this.pending.set(id, pending);
      this.events.onBusyChange(this);
      this.send({ type: "launch", id, request: { ...hostRequest(request), callMark: mark } });
    });
  }

  /** Closes the channel: an idle host exits; one with launches aborts them first. */
  disconnect(): void {
    if (this.child.connected) this.child.disconnect();
  }

  /** Keeps the server alive while launches are unfinished, and not otherwise (stdin's end still ends it). */
  holdEventLoop(hold: boolean): void {
    if (hold) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }

  /**
   * One JSON line on the IPC channel (a Unix socket), written synchronously.
   * A V8 CPU profile shows 0.26-0.5 ms per launch "in" `writeUtf8String` here,
   * but that profiler samples wall time: the write wakes the idle host, and
   * the kernel's synchronous wake-up puts it on this CPU, where it preempts
   * the server for its fork. Measured around this call (300 calls): 57-70%
   * of the sends were interrupted by an involuntary context switch, a median
   * of 0.1-0.9 ms passed, but the server's CPU time was 0.08 ms (the same
   * message to an idle Node child alone: 0.03 ms). What is left is the
   * serialisation and one `write`: the `advanced` serialisation costs the
   * same (0.03 ms), and a pipe's reader is woken the same (synchronous)
   * way, so nothing here is worth changing; the server's CPU per call is not
   * in this write.
   */
  private send(message: ToHost): void {
    if (this.gone || !this.child.connected) return;
    this.child.send(message, (error) => {
      if (error !== null) this.abandon("the child host's channel failed");
    });
  }

  private onMessage(raw: unknown): void {
    const message = parseFromHost(raw);
    if (message === undefined) {
      this.abandon("the child host sent a malformed message");
      return;
    }
    if (message.type === "ready") {
      this.onReady();
      return;
    }
    const pending = this.pending.get(message.id);
    if (pending !== undefined) this.apply(message.id, pending, message);
  }

  /** The host is listening: launches sent during its start-up now have the plain answer deadline. */
  private onReady(): void {
    if (this.ready) return;
    this.ready = true;
    for (const [id, pending] of this.pending) {
      if (!pending.started) this.expectAnswer(id, pending, this.spawnDeadlineMs, "did not answer");
    }
  }

  private apply(id: number, pending: Pending, message: LaunchAnswer): void {
    if (message.type === "spawned") {
      if (pending.started) return;
      pending.pid = message.pid;
      pending.started = true;
      const { timeoutMs, killGraceMs } = pending.request;
      this.expectAnswer(id, pending, timeoutMs + (killGraceMs ?? DEFAULT_KILL_GRACE_MS) + this.spawnDeadlineMs, "did not report the end of the process");
      pending.start.resolve({ pid: message.pid, running: pending.running });
      return;
    }
    this.finish(id, pending);
    if (message.type === "result") {
      const { redactor, maxOutputBytes } = pending.request;
      if (!pending.started) pending.start.resolve({ pid: message.result.pid, running: pending.running });
      // Redacted in slices: other calls' messages are read and answered meanwhile.
      pending.run.resolve(redactResult(message.result, redactor ?? NO_REDACTION, maxOutputBytes));
      return;
    }
    const error = new LaunchError(pending.request.executable, message.code, message.detail);
    if (pending.started) pending.run.reject(error);
    else pending.start.reject(error);
  }

  /** Gives the host up unless it answers `pending` within `ms` (no deadline beyond a timer's range). */
  private expectAnswer(id: number, pending: Pending, ms: number, what: string): void {
    pending.deadline?.();
    if (ms > MAX_TIMER_MS) return;
    const deadline = this.timers.after(
      ms,
      () => {
        // Timers run before pending I/O: after a stall of the server's own event loop, the answer may
        // be waiting in the channel. It is read before setImmediate runs; only then is the host given up.
        setImmediate(() => {
          if (pending.deadline === deadline && this.pending.has(id)) this.abandon(`the child host ${what} within ${ms} ms and was killed`);
        });
      },
      true,
    );
    pending.deadline = deadline;
  }

  private finish(id: number, pending: Pending): void {
    this.pending.delete(id);
    pending.deadline?.();
    pending.stopCancel();
    this.events.onBusyChange(this);
  }

  /**
   * Gives the host up: kills it and what its unfinished launches may have left running (host-leftovers.ts),
   * and fails each of them with an error that says what was done.
   */
  private abandon(reason: string): void {
    if (this.gone) return;
    this.gone = true;
    // A host that still runs (given up, or broken) is stopped and its children killed before it is.
    const children = this.child.exitCode === null && this.child.signalCode === null ? stopHostAndKillChildren(this.identity) : [];
    this.child.kill("SIGKILL");
    const unfinished = [...this.pending];
    const reported = new Set<number>();
    for (const [, pending] of unfinished) {
      if (pending.pid === undefined) continue;
      reported.add(pending.pid);
      killProcessTree(pending.pid, this.platform);
    }
    // The host's mark (its forks) first, then every unfinished launch's in one search: a fork read in the middle of its
    // execve holds neither mark, and its call's by the later search. None without an unfinished launch (the host forks
    // only for one): an idle host's exit lists no /proc.
    const launchMarks = unfinished.map(([, pending]) => pending.mark);
    const leftovers = unfinished.length === 0 ? { forks: [], byLaunch: [] } : killMarkedLeftovers(this.identity, launchMarks);
    const unreportedChildren = [...children, ...leftovers.forks].filter((pid) => !reported.has(pid));
    for (const [index, [id, pending]] of unfinished.entries()) {
      this.finish(id, pending);
      const marked = (leftovers.byLaunch[index] ?? []).filter((pid) => pid !== pending.pid);
      if (pending.pid !== undefined) {
        const more = marked.length === 0 ? "" : `, and ${processes(marked.length)} carrying the call's mark`;
        pending.run.reject(new ChildHostError(`${reason} during the call; its process group was killed${more}, nothing of it is left running`));
      } else if (this.identity === undefined) {
        pending.start.reject(
          new ChildHostError(
            `${reason} before it reported the start of the process; the process may have started, and the server could not find it (no process search on this system)`,
          ),
        );
      } else {
        const killed = new Set([...marked, ...unreportedChildren]).size;
        const found = killed === 0 ? "found none running" : `killed ${processes(killed)}`;
        pending.start.reject(
          new ChildHostError(
            `${reason} before it reported the start of the process; the server searched for the call's processes (its mark, the host's children and forks) and ${found}`,
          ),
        );
      }
    }
    this.events.onGone(this);
  }
}

function processes(count: number): string {
  return count === 1 ? "1 process" : `${String(count)} processes`;
}
