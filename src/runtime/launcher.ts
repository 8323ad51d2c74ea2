/**
 * Runs one allowed call: an absolute executable, an argument vector, a built
 * environment, and hard limits on output, time and lifetime.
 *
 * - No shell, ever: `spawn(file, args, {shell: false})`; stdin is closed, so a
 *   pager or a login prompt cannot wait for input that never comes.
 * - The environment is exactly `request.env`; nothing of Torii's own leaks in
 *   but, on Linux, the call's random mark (`TORII_CALL_MARK`, call-mark.ts;
 *   the caller's `callMark` when it drew one: the server, through the host).
 * - Output is streamed into one byte budget shared by stdout and stderr. The
 *   call that would pass it keeps what fits, is marked `truncated`, and its
 *   process group is terminated: a child writing gigabytes costs the server at
 *   most `maxOutputBytes` of memory.
 * - On POSIX the child leads its own process group (`detached: true`), so a
 *   timeout, a cancellation or the cap signals the whole tree: SIGTERM, then
 *   SIGKILL after `killGraceMs`. When the child exits, whatever is left of its
 *   group is killed at once: no process outlives its call.
 * - Injected secrets are redacted from the returned output (`request.redactor`),
 *   after capture, so a value split across chunks is masked too.
 * - The result settles on `exit` plus a short drain; a descendant that escaped
 *   the group and still holds a pipe open cannot hang the call, and on Linux
 *   it is killed then (pipe-holders.ts). On Linux every process left that
 *   carries the call's mark in its environment is killed at the child's exit
 *   too, however it escaped the group (call-mark.ts).
 *
 * On Windows there is no process-group signal: the tree is force-killed with
 * `taskkill /T /F /PID` (argv only), then the child itself. Descendants left
 * behind by a child that already exited cannot be found that way.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";
import { TextDecoder } from "node:util";
import { CALL_MARK_VARIABLE, killMarkedProcesses, newCallMark } from "./call-mark.js";
import { killPipeHolders, outputPipesOf, type OutputPipes } from "./pipe-holders.js";
import { redactOutput } from "./redact-output.js";
import type { Redactor } from "./redaction.js";
import { MAX_TIMER_MS, SYSTEM_TIMERS, type CancelTimer, type Timers } from "./timers.js";

export interface LaunchRequest {
  /** Absolute path of the file to run (see resolveExecutable). */
  readonly executable: string;
  readonly args: readonly string[];
  /** The child's whole environment; the server's own is never inherited. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** One budget for stdout and stderr together, in bytes. */
  readonly maxOutputBytes: number;
  readonly timeoutMs: number;
  /** Time between SIGTERM and SIGKILL; 2000 when absent. */
  readonly killGraceMs?: number | undefined;
  /** Client cancellation: aborting terminates the process tree. */
  readonly signal?: AbortSignal | undefined;
  /** Defaults to `process.platform`; decides how the tree is killed. */
  readonly platform?: NodeJS.Platform | undefined;
  /** Windows: pass `args` as a ready command line (only for a planned batch launch). */
  readonly windowsVerbatimArguments?: boolean | undefined;
  /** The call's redactor: the injected secrets are masked in the returned output (redact-output.ts). */
  readonly redactor?: Redactor | undefined;
  /**
   * The run's clock and timers; SYSTEM_TIMERS when absent. Only tests pass one (a manual clock that
   * fires the timeout or the kill grace once the child is ready); it never crosses to the child host.
   */
  readonly timers?: Timers | undefined;
  /**
   * Linux: the call's mark (call-mark.ts), drawn by the caller that must be able to find the call's processes
   * without knowing their pids (the server, for a child host that dies before reporting the spawn); the launcher
   * draws one when absent. Ignored off Linux.
   */
  readonly callMark?: string | undefined;
}

export interface LaunchResult {
  /** null when the process died of a signal, was never started, or never exited after the final kill. */
  readonly exitCode: number | null;
  /** The signal that ended the process; null with a null exitCode means no exit was seen. */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The output budget was exhausted; what was kept ends on a character boundary. */
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly canceled: boolean;
  readonly durationMs: number;
  /** undefined when the call was canceled before it started. */
  readonly pid: number | undefined;
  /**
   * The order in which the output arrived: the lengths (UTF-16 units) of the
   * runs of text each stream added in turn, stdout first (stream-interleaving.ts).
   */
  readonly interleaving?: readonly number[] | undefined;
}

/** The process could not be started. The message names the executable and never the environment. */
export class LaunchError extends Error {
  override readonly name = "LaunchError";
  /** The system error code (`ENOENT`, `EACCES`, …) or `ERR_LAUNCH_REQUEST` for an unusable request. */
  readonly code: string;
  readonly executable: string;
  /** What went wrong, without the code (so the error can be rebuilt on the other side of the child host). */
  readonly detail: string;

  constructor(executable: string, code: string, detail: string) {
    super(`cannot launch ${JSON.stringify(executable)}: ${detail} (${code})`);
    this.code = code;
    this.executable = executable;
    this.detail = detail;
  }
}

export const DEFAULT_KILL_GRACE_MS = 2000;
/**
 * How long to keep reading after the child exited. Enough for the pipes to
 * drain what the child wrote; a descendant that escaped the process group and
 * keeps a pipe open is cut off after it.
 */
const EXIT_DRAIN_GRACE_MS = 200;
/**
 * How long to wait for an exit after the final kill. Past it the call settles
 * with no exit status (the process is stuck in the kernel, or taskkill failed).
 */
const UNKILLABLE_BACKSTOP_MS = 5000;

export type StreamName = "stdout" | "stderr";

/** A process that was started: its pid, and its run (which settles as launch() does). */
export interface StartedLaunch {
  /** undefined when the call was canceled before it started. */
  readonly pid: number | undefined;
  readonly running: Promise<LaunchResult>;
}

/**
 * Starts a launch and resolves once the process has been spawned (or was
 * canceled before it started), before it ends: a caller holding a lock while
 * the process starts awaits this, not the run. Rejects with LaunchError when
 * the process could not be started. Implemented in-process by startLaunch and
 * through the child host by the MCP server (child-host/host-client.ts).
 */
export type StartLaunch = (request: LaunchRequest) => Promise<StartedLaunch>;

/**
 * Runs `request.executable` with `request.args` and resolves with its exit
 * status and captured output. Rejects with LaunchError only when the process
 * could not be started; a non-zero exit, a signal, a timeout, a cancellation
 * or a truncation are all results.
 */
export function launch(request: LaunchRequest): Promise<LaunchResult> {
  return beginLaunch(request).running;
}

/** launch() as a StartLaunch: this process spawns the child itself (the operator CLI, and the child host). */
export function startLaunch(request: LaunchRequest): Promise<StartedLaunch> {
  const started = beginLaunch(request);
  // No pid: the start failed (the run rejects, and so does this) or was canceled before it began.
  return started.pid === undefined ? started.running.then(() => started) : Promise.resolve(started);
}

/** Spawns synchronously (when the request is usable and not yet canceled); never throws. */
export function beginLaunch(request: LaunchRequest): StartedLaunch {
  const platform = request.platform ?? process.platform;
  const problem = requestProblem(request, platform);
  if (problem !== undefined) return { pid: undefined, running: Promise.reject(new LaunchError(request.executable, "ERR_LAUNCH_REQUEST", problem)) };
  if (request.signal?.aborted === true) return { pid: undefined, running: Promise.resolve(canceledBeforeStart()) };
  const mark = platform === "linux" ? (request.callMark ?? newCallMark(platform)) : undefined;
  const started = startChild(request, platform, mark);
  if (!started.ok) return { pid: undefined, running: Promise.reject(started.error) };
  const running = new Promise<LaunchResult>((resolve, reject) => {
    new ChildRun(request, platform, started.child, { resolve, reject }, mark).watch(started.stdout, started.stderr);
  });
  return { pid: started.child.pid, running };
}

type Started =
  | { readonly ok: true; readonly child: ChildProcess; readonly stdout: Readable; readonly stderr: Readable }
  | { readonly ok: false; readonly error: LaunchError };

/** Spawns the child (no shell, stdin closed, its own process group on POSIX); a synchronous refusal is an error, never a throw. */
function startChild(request: LaunchRequest, platform: NodeJS.Platform, mark: string | undefined): Started {
  let child: ChildProcess;
  try {
    child = spawn(request.executable, request.args, {
      shell: false,
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
      detached: platform !== "win32",
      env: mark === undefined ? { ...request.env } : { ...request.env, [CALL_MARK_VARIABLE]: mark },
      cwd: request.cwd,
      windowsVerbatimArguments: request.windowsVerbatimArguments === true,
    });
  } catch (error) {
    // Synchronous refusals: a NUL byte in an argument, EINVAL for a .bat/.cmd on Windows.
    return { ok: false, error: launchErrorFrom(request.executable, error) };
  }
  const { stdout, stderr } = child;
  if (stdout === null || stderr === null) {
    // Unreachable with stdio "pipe"; never leave a child running without its output.
    child.kill("SIGKILL");
    return { ok: false, error: new LaunchError(request.executable, "ERR_SPAWN", "the process was started without output pipes") };
  }
  return { ok: true, child, stdout, stderr };
}

/**
 * One running child and everything that can end it: its exit, the timeout,
 * a cancellation, the output cap, and the backstop for a process SIGKILL
 * cannot end. Settles the launch promise exactly once.
 */
class ChildRun {
  private readonly timers: Timers;
  private readonly started: number;
  private readonly output: CappedOutput;
  private readonly killGraceMs: number;
  private readonly timeoutTimer: CancelTimer;
  private readonly onAbort = (): void => {
    if (this.exit !== undefined || this.timedOut) return;
    this.canceled = true;
    this.terminate();
  };
  private spawned = false;
  private settled = false;
  private terminating = false;
  private timedOut = false;
  private canceled = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private openStreams = 2;
  private killTimer: CancelTimer | undefined;
  private drainTimer: CancelTimer | undefined;
  private backstopTimer: CancelTimer | undefined;
  private streams: readonly Readable[] = [];
  /** What the child's descriptors 1 and 2 are (Linux), to find a descendant still holding them after its exit. */
  private readonly outputPipes: OutputPipes;

  constructor(
    private readonly request: LaunchRequest,
    private readonly platform: NodeJS.Platform,
    private readonly child: ChildProcess,
    private readonly settle: { resolve: (result: LaunchResult | Promise<LaunchResult>) => void; reject: (error: LaunchError) => void },
    /** The mark in the child's environment (Linux), to find descendants that left the group however they did. */
    private readonly mark: string | undefined,
  ) {
    this.timers = request.timers ?? SYSTEM_TIMERS;
    this.started = this.timers.now();
    this.output = new CappedOutput(request.maxOutputBytes);
    this.killGraceMs = request.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    this.timeoutTimer = this.timers.after(request.timeoutMs, () => {
      if (this.exit !== undefined || this.canceled) return;
      this.timedOut = true;
      this.terminate();
    });
    request.signal?.addEventListener("abort", this.onAbort, { once: true });
    // Read now, while the child certainly runs (spawn returned, its exit is not yet reaped).
    this.outputPipes = outputPipesOf(child.pid, platform);
  }

  /** Streams both outputs into the shared budget and follows the child's lifecycle events. */
  watch(stdout: Readable, stderr: Readable): void {
    this.streams = [stdout, stderr];
    this.capture("stdout", stdout);
    this.capture("stderr", stderr);
    this.child.on("spawn", () => {
      this.spawned = true;
    });
    this.child.on("error", (error) => {
      // After a successful spawn, errors come from signalling; the exit path still settles.
      if (this.spawned || this.settled) return;
      this.cleanUp();
      this.settle.reject(launchErrorFrom(this.request.executable, error));
    });
    this.child.on("exit", (code, signal) => {
      this.onExit(code, signal);
    });
  }

  private capture(name: StreamName, stream: Readable): void {
    stream.on("data", (chunk: Buffer) => {
      if (this.output.add(name, chunk)) this.terminate();
    });
    // After a destroy or an EPIPE-like failure the stream only has to stop counting as open.
    stream.on("error", () => undefined);
    stream.on("close", () => {
      this.openStreams -= 1;
      if (this.openStreams === 0) this.finish();
    });
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    this.timeoutTimer();
    this.killTimer?.();
    // The leader is gone; its group may not be. This is the last signal sent to
    // the group: once it is empty its id may be reused.
    if (this.platform !== "win32" && this.child.pid !== undefined) signalGroup(this.child, this.child.pid, "SIGKILL");
    // Whatever still carries the call's mark left the group (a new session, a daemon's double fork): it dies with the call.
    if (this.mark !== undefined && this.child.pid !== undefined) killMarkedProcesses(this.mark, { pid: this.child.pid, startedAt: this.outputPipes.startedAt });
    if (this.openStreams === 0) {
      this.finish();
      return;
    }
    this.drainTimer = this.timers.after(EXIT_DRAIN_GRACE_MS, () => {
      // A pipe still open after the drain is held by a descendant that left the group: it dies with the call too.
      if (this.openStreams > 0) killPipeHolders(this.outputPipes);
      this.finish();
    });
  }

  /** SIGTERM to the group, SIGKILL after the grace (Windows: the tree at once); once per run. */
  private terminate(): void {
    const pid = this.child.pid;
    if (this.terminating || this.exit !== undefined || pid === undefined) return;
    this.terminating = true;
    if (this.platform === "win32") {
      killWindowsTree(this.child, pid);
      this.startBackstop();
      return;
    }
    signalGroup(this.child, pid, "SIGTERM");
    this.killTimer = this.timers.after(this.killGraceMs, () => {
      if (this.exit !== undefined) return;
      signalGroup(this.child, pid, "SIGKILL");
      this.startBackstop();
    });
  }

  /** A process that SIGKILL cannot end (uninterruptible I/O, say) must not hold the call forever. */
  private startBackstop(): void {
    this.backstopTimer = this.timers.after(UNKILLABLE_BACKSTOP_MS, () => {
      this.finish(true);
    });
  }

  private cleanUp(): void {
    this.settled = true;
    this.timeoutTimer();
    this.killTimer?.();
    this.drainTimer?.();
    this.backstopTimer?.();
    this.request.signal?.removeEventListener("abort", this.onAbort);
    for (const stream of this.streams) stream.destroy();
  }

  /** Settles once the child exited, or, with `abandon`, without waiting for that any longer. */
  private finish(abandon = false): void {
    if (this.settled || (this.exit === undefined && !abandon)) return;
    const status = this.exit ?? { code: null, signal: null };
    this.cleanUp();
    const raw: LaunchResult = {
      exitCode: status.code,
      signal: status.signal,
      stdout: this.output.text("stdout"),
      stderr: this.output.text("stderr"),
      truncated: this.output.truncated,
      timedOut: this.timedOut,
      canceled: this.canceled,
      durationMs: Math.round(this.timers.now() - this.started),
      pid: this.child.pid,
      interleaving: this.output.interleaving,
    };
    // No redactor (the child host's launches: the server redacts the result it receives, with the same
    // function): the output is handed on as it is, without a pass that could change nothing.
    const { redactor, maxOutputBytes } = this.request;
    this.settle.resolve(redactor === undefined ? raw : redactResult(raw, redactor, maxOutputBytes));
  }
}

/**
 * Masks the call's injected secrets in a finished run's output, under its
 * byte cap (redact-output.ts). The launcher applies it when the run settles;
 * a server whose child host ran the process (without the redactor, which does
 * not cross the process boundary) applies it to the host's result, so both
 * paths redact through this one function. It runs in slices, letting the
 * event loop turn between them (a large output does not hold the server).
 */
export async function redactResult(result: LaunchResult, redactor: Redactor, maxOutputBytes: number): Promise<LaunchResult> {
  const output = await redactOutput(result, redactor, {
    cut: result.truncated || result.timedOut || result.canceled,
    maxBytes: maxOutputBytes,
  });
  return { ...result, stdout: output.stdout, stderr: output.stderr, truncated: result.truncated || output.trimmed };
}

/** The argv of the Windows tree kill, for the process `pid`. */
export function windowsTreeKillArgs(pid: number): readonly string[] {
  return ["/T", "/F", "/PID", String(pid)];
}

/**
 * Both streams' output under one shared byte budget, decoded as it arrives.
 *
 * Bytes are counted in arrival order across stdout and stderr; the chunk that
 * would pass the budget keeps only what fits, and from then on every chunk of
 * either stream is dropped. Each stream has its own streaming UTF-8 decoder, so
 * a character split across chunks decodes whole and no raw bytes pile up.
 * A stream that was cut is never flushed: a character the cut left incomplete
 * is dropped rather than turned into U+FFFD, which makes the kept text end on a
 * character boundary. Invalid bytes the child wrote itself still decode to
 * U+FFFD, as with `TextDecoder` `fatal: false`.
 */
export class CappedOutput {
  #truncated = false;
  #kept = 0;
  readonly #cap: number;
  // Made at a stream's first bytes: most calls leave one stream (often both) empty, and each decoder
  // is a native object the child host would otherwise create and free for every launch.
  readonly #decoders: Record<StreamName, TextDecoder | undefined> = { stdout: undefined, stderr: undefined };
  readonly #parts: Record<StreamName, string[]> = { stdout: [], stderr: [] };
  readonly #runs: number[] = [];

  constructor(cap: number) {
    this.#cap = cap;
  }

  /** The budget ran out: some output was dropped. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /** The lengths of the runs of decoded text each stream added in turn, stdout first (LaunchResult `interleaving`). */
  get interleaving(): readonly number[] {
    return this.#runs;
  }

  /** Bytes kept so far, both streams together. */
  get keptBytes(): number {
    return this.#kept;
  }

  /** Keeps what fits; returns true exactly once, for the chunk that exhausted the budget. */
  add(name: StreamName, chunk: Uint8Array): boolean {
    if (this.#truncated) return false;
    const room = this.#cap - this.#kept;
    const fits = chunk.length <= room;
    const kept = fits ? chunk : chunk.subarray(0, room);
    if (kept.length > 0) this.#keep(name, (this.#decoders[name] ??= utf8Decoder()).decode(kept, { stream: true }));
    this.#kept += kept.length;
    if (fits) return false;
    this.#truncated = true;
    return true;
  }

  #keep(name: StreamName, text: string): void {
    this.#parts[name].push(text);
    if (text === "") return;
    const last = this.#runs.length - 1;
    // Runs alternate stdout, stderr, stdout…: an even index is stdout's.
    if (last >= 0 && (last % 2 === 0) === (name === "stdout")) this.#runs[last] = (this.#runs[last] as number) + text.length;
    else if (last === -1 && name === "stderr") this.#runs.push(0, text.length);
    else this.#runs.push(text.length);
  }

  /** The decoded text of one stream; call once per stream, after the last `add`. */
  text(name: StreamName): string {
    // Both streams may end mid-character once truncated: the one that hit the
    // budget, and the other, whose later chunks were dropped from then on.
    // A stream that never had a byte has no decoder and nothing held back in one.
    const tail = this.#truncated ? "" : (this.#decoders[name]?.decode() ?? "");
    return this.#parts[name].join("") + tail;
  }
}

function utf8Decoder(): TextDecoder {
  return new TextDecoder("utf-8", { fatal: false });
}

function requestProblem(request: LaunchRequest, platform: NodeJS.Platform): string | undefined {
  const absolute = platform === "win32" ? path.win32.isAbsolute(request.executable) : path.posix.isAbsolute(request.executable);
  if (!absolute) return "the executable must be an absolute path";
  if (!Number.isSafeInteger(request.maxOutputBytes) || request.maxOutputBytes < 0) return "maxOutputBytes must be a non-negative integer";
  if (!isTimerDelay(request.timeoutMs) || request.timeoutMs === 0) return "timeoutMs must be a positive number of milliseconds";
  if (request.killGraceMs !== undefined && !isTimerDelay(request.killGraceMs)) return "killGraceMs must be a non-negative number of milliseconds";
  return undefined;
}

function isTimerDelay(value: number): boolean {
  return Number.isFinite(value) && value >= 0 && value <= MAX_TIMER_MS;
}

function canceledBeforeStart(): LaunchResult {
  return {
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    truncated: false,
    timedOut: false,
    canceled: true,
    durationMs: 0,
    pid: undefined,
  };
}

/** Signals the process group led by `pid`; falls back to the child alone if the group cannot be signalled. */
function signalGroup(child: ChildProcess, pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if (errorCode(error) === "ESRCH") return;
    child.kill(signal);
  }
}

function killWindowsTree(child: ChildProcess, pid: number): void {
  // The tree first: once the child is gone, taskkill can no longer find its descendants.
  execFile(taskkillPath(), windowsTreeKillArgs(pid), { windowsHide: true, shell: false, timeout: 10_000 }, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
}

function taskkillPath(): string {
  const systemRoot = process.env.SystemRoot;
  const root = systemRoot !== undefined && /^[A-Za-z]:\\/u.test(systemRoot) ? systemRoot : "C:\\Windows";
  return path.win32.join(root, "System32", "taskkill.exe");
}

/**
 * Force-kills the process group led by `pid` (Windows: its tree) when this
 * process does not hold the child: the server, for the processes of a child
 * host that died before reporting their end.
 */
export function killProcessTree(pid: number, platform: NodeJS.Platform = process.platform): void {
  if (platform === "win32") {
    execFile(taskkillPath(), windowsTreeKillArgs(pid), { windowsHide: true, shell: false, timeout: 10_000 }, () => undefined);
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

function launchErrorFrom(executable: string, error: unknown): LaunchError {
  const code = errorCode(error) ?? "ERR_SPAWN";
  return new LaunchError(executable, code, SPAWN_ERROR_DETAILS[code] ?? "the process could not be started");
}

const SPAWN_ERROR_DETAILS: Readonly<Record<string, string>> = {
  ENOENT: "the executable or the working directory does not exist",
  EACCES: "permission denied (the file is not executable, or a directory on its path is not searchable)",
  EPERM: "operation not permitted",
  ENOEXEC: "the file is not in an executable format",
  EISDIR: "the executable is a directory",
  ENOTDIR: "a component of the path is not a directory",
  EMFILE: "too many open files in this process",
  EAGAIN: "the system cannot create another process right now",
  EINVAL: "invalid spawn request (on Windows, .bat/.cmd files need a planned batch launch)",
  ERR_INVALID_ARG_VALUE: "an argument, the working directory or an environment entry is invalid (e.g. holds a NUL byte)",
  ERR_INVALID_ARG_TYPE: "an argument or environment entry is not a string",
};

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = error.code;
  return typeof code === "string" ? code : undefined;
}
