/**
 * What a provider tool call needs beyond the tool list: the audit writer, the
 * approver (and its page server), the lease and grant gates, the pipeline and
 * the launcher. serve.ts imports this module on the first call, not at
 * start-up: initialize and tools/list need none of it, so the server answers
 * them sooner and an idle server holds less (docs/architecture.md, "Start-up").
 */
import { randomUUID } from "node:crypto";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import path from "node:path";
import { createApprover } from "../approval/create-approver.js";
import { restrictOwnPath } from "../config/search-trust.js";
import { AuditLog, SERVER_HEAD_DELAY_MS } from "../audit/audit-log.js";
import { FileGrantGate, FileLeaseGate } from "../pipeline/file-gates.js";
import { invoke, type InvokeDeps, type ProviderCall } from "../pipeline/invoke.js";
import type { CallOutcome } from "../pipeline/call-types.js";
import { ScopeMutex } from "../pipeline/scope-mutex.js";
import type { ServerConfiguration } from "../pipeline/server-configuration.js";
import { Semaphore, SemaphoreFullError, type Release } from "../runtime/concurrency.js";
import { ChildHostClient, DEFAULT_HOST_IDLE_MS, DEFAULT_SPAWN_DEADLINE_MS } from "../runtime/child-host/host-client.js";
import { DEFAULT_KILL_GRACE_MS } from "../runtime/launcher.js";
import { logToStderr } from "./serve-lifecycle.js";
import { millisecondsFrom } from "./test-periods.js";

/** The call side of a running server. */
export interface CallPath {
  /** The server's audit log (every call's records go through it). */
  readonly audit: AuditLog;
  /** Runs the pipeline for a validated call, within `max_concurrent_calls`. */
  run(call: ProviderCall): Promise<CallOutcome>;
  /** Stops the approval page server, if one was started, and writes the audit records still waiting. */
  close(): Promise<void>;
}

/**
 * How many calls may wait for one of the `max_concurrent_calls` slots; a call past them is refused at
 * once with a JSON-RPC error (threat model section 6). Unbounded, a client's flood of calls queued
 * without end behind calls that run (or wait for the operator), each holding its request and
 * handler state: 100,000 calls took the server past 600 MB.
 */
export const MAX_WAITING_CALLS = 256;

/** What the server fixed at start-up, before this module was loaded. */
export interface StartupPlace {
  /** The server's working directory at start-up (never searched for a program). */
  readonly cwd: string;
  /** The folder of the server's own code (never searched for a program either). */
  readonly selfDir: string;
  /**
   * Resolves once stdout can take another result (BoundedStdioTransport.whenWritable). A call that holds
   * its slot waits for it before it runs: while the client does not read, only the calls already running
   * add a result each to what waits in memory (1.4 GB once with 256 queued calls of 256 KiB control bytes).
   */
  readonly outputRoom?: () => Promise<void> | undefined;
}

/** Builds the call side for a loaded configuration. */
export function createCallPath({ root, registry, settings, policies }: ServerConfiguration, { cwd, selfDir, outputRoom }: StartupPlace): CallPath {
  // The server's own PATH is reduced as a child's is (the AWS SDK runs credential_process by name in this process),
  // before the copy below is taken; each entry left out is named once, for the operator.
  const trustedDirectories = settings.pathTrustedDirectories;
  for (const { entry, reason } of restrictOwnPath(process.env, { cwd, selfDir, trustedDirectories }, process.platform))
    logToStderr(`PATH entry ${entry} is not searched: ${reason}`);
  const audit = new AuditLog(path.join(root, "audit.jsonl"), undefined, { headDelayMs: SERVER_HEAD_DELAY_MS });
  // The wait on stdout that was last reported on stderr: one line per wait, not one per call.
  let reportedWait: Promise<void> | undefined;
  const slots = new Semaphore(settings.maxConcurrentCalls, { maxWaiting: MAX_WAITING_CALLS });
  const approvals = createApprover({ root, settings, policies, env: process.env, platform: process.platform, place: { cwd, selfDir, trustedDirectories } });
  // The server never forks a call's process itself: its child host does (docs/architecture.md, "Process model").
  const host = new ChildHostClient({
    idleMs: millisecondsFrom(process.env, "TORII_CHILD_HOST_IDLE_MS", DEFAULT_HOST_IDLE_MS),
    spawnDeadlineMs: millisecondsFrom(process.env, "TORII_CHILD_HOST_SPAWN_DEADLINE_MS", DEFAULT_SPAWN_DEADLINE_MS),
  });
  // Between a process's SIGTERM (its timeout, a cancel) and its SIGKILL.
  const killGraceMs = millisecondsFrom(process.env, "TORII_KILL_GRACE_MS", DEFAULT_KILL_GRACE_MS);

  const deps: InvokeDeps = {
    registry,
    settings,
    policies,
    leases: new FileLeaseGate(),
    grants: new FileGrantGate((event, scope, file) => {
      void audit.append({ call_id: randomUUID(), scope, event, detail: file });
    }),
    approver: approvals.approver,
    start: (request) => host.start({ ...request, killGraceMs: request.killGraceMs ?? killGraceMs }),
    authScopes: new ScopeMutex(),
    // A copy taken once: enumerating process.env crosses into C++ for every variable (~0.1 ms a call),
    // and nothing in the server changes its own environment after start-up.
    serverEnv: Object.freeze({ ...process.env }),
    platform: process.platform,
    selfDir,
    cwd,
    pathTrustedDirectories: trustedDirectories,
  };

  return {
    audit,
    async run(call) {
      let release: Release;
      try {
        release = await slots.acquire(call.signal);
      } catch (error) {
        if (error instanceof SemaphoreFullError)
          throw new McpError(ErrorCode.InternalError, `${error.message}; nothing was run, retry once some have finished`);
        throw error;
      }
      try {
        const room = outputRoom?.();
        if (room !== undefined) {
          if (reportedWait !== room) logToStderr("stdout is full (the client is not reading it): calls wait to run until it reads");
          reportedWait = room;
          await untilAborted(room, call.signal);
        }
        return await invoke(call, deps);
      } finally {
        release();
      }
    },
    close: async () => {
      host.close();
      try {
        await approvals.close();
      } finally {
        // What waits in the writer is written now, and every later record at once (deferWrite).
        await audit.finish();
      }
    },
  };
}

/** `promise`, or a rejection with the signal's reason once `signal` aborts first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      reject(abortError(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException("The operation was aborted", "AbortError");
}
