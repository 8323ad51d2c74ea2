/**
 * The last steps of an allowed call: prepare the child (absolute executable,
 * built environment, the broker's target options before the agent's canonical
 * argv), start it while the lease still holds, stream its output under the cap
 * and the timeout, and record what happened.
 */
import { ChildHostError } from "../runtime/child-host/protocol.js";
import { killProcessTree, type LaunchResult, type StartedLaunch, type StartLaunch } from "../runtime/launcher.js";
import { linkedAbort } from "../runtime/linked-abort.js";
import type { Redactor } from "../runtime/redaction.js";
import type { Settings } from "../config/settings.js";
import { LockCompromisedError } from "../state/errors.js";
import { NOT_RECORDED } from "./call-audit.js";
import type { CallDecision, CallOutcome } from "./call-types.js";
import { planChild, type ChildPlanDeps, type CredentialLayers } from "./child-plan.js";
import type { LeaseGate } from "./gates.js";
import { callScope, type ProviderCall } from "./provider-call.js";
import { targetInjection } from "./target-injection.js";

export interface ProgramDeps extends ChildPlanDeps {
  readonly settings: Settings;
  readonly leases: LeaseGate;
  /** Resolves once the process is spawned; the lease lock is held until then. */
  readonly start: StartLaunch;
}

export interface ProgramRequest {
  readonly call: ProviderCall;
  readonly decision: CallDecision;
  readonly canonicalTokens: readonly string[];
  readonly credentials: CredentialLayers;
  /** Masks the injected credentials in the output and in error messages. */
  readonly redactor: Redactor;
}

export async function runProgram(request: ProgramRequest, deps: ProgramDeps): Promise<CallOutcome> {
  const { call, decision } = request;
  const config = call.provider.config;
  const injection = targetInjection(call.provider, call.target);
  let result: LaunchResult;
  // Aborted when the call is canceled, or when the lease lock turns out lost after the start: the process then ran without exclusion.
  const link = linkedAbort([call.signal]);
  const stop = link.controller;
  let started: StartedLaunch | undefined;
  // No process starts before the records that allowed it are in the file; without them, none starts.
  if (!(await call.audit.flush())) return { ...callScope(call), decision, error: NOT_RECORDED };
  try {
    const plan = planChild(
      config.command,
      [...config.args_prefix, ...injection.args, ...request.canonicalTokens],
      call.provider,
      request.credentials,
      injection.env,
      deps,
    );
    const timeoutSeconds = config.runtime?.timeout_seconds ?? deps.settings.timeoutSeconds;
    // start() resolves once the process is spawned (the child host answered), not when it ends: the
    // lease lock is held until then, so a revocation either stops the start or finds the process running.
    const start = async (): Promise<StartedLaunch> =>
      (started = await deps.start({
        executable: plan.executable,
        args: plan.args,
        env: plan.env,
        cwd: deps.cwd,
        maxOutputBytes: deps.settings.maxOutputBytes,
        timeoutMs: timeoutSeconds * 1000,
        signal: stop.signal,
        windowsVerbatimArguments: plan.windowsVerbatimArguments,
        redactor: request.redactor,
      }));
    const gated =
      call.target === undefined ? { active: true as const, value: await start() } : await deps.leases.startWhileActive(call.provider, call.target, start);
    if (!gated.active) {
      call.audit.record({ event: "target-access-lost", detail: "at-launch" });
      return {
        ...callScope(call),
        decision: { result: "deny", source: "target-access-lost", reason: `the lease for target ${call.target?.name ?? ""} ended before launch` },
      };
    }
    result = await gated.value.running;
  } catch (error) {
    call.audit.record({ event: "launch-failed", detail: (error as Error).name });
    if (error instanceof LockCompromisedError)
      return { ...callScope(call), decision, error: request.redactor.redact(stopUnlocked(config.command, started, stop, error, deps.platform)) };
    // A host that died says itself whether the process had started (and was killed) or not.
    const message = error instanceof ChildHostError ? `${config.command}: ${error.message}` : `could not start ${config.command}: ${(error as Error).message}`;
    return { ...callScope(call), decision, error: request.redactor.redact(message) };
  } finally {
    link.unlink();
  }
  call.audit.record({
    event: "ran",
    exit_code: result.exitCode,
    duration_ms: Math.round(result.durationMs),
    truncated: result.truncated,
    timed_out: result.timedOut,
  });
  return {
    ...callScope(call),
    decision,
    execution: {
      exit_code: result.exitCode,
      signal: result.signal,
      stdout: result.stdout,
      stderr: result.stderr,
      truncated: result.truncated,
      timed_out: result.timedOut,
      canceled: result.canceled,
      duration_ms: Math.round(result.durationMs),
    },
  };
}

/**
 * The lease lock was lost while the process started (LeaseGate.startWhileActive threw after the
 * start resolved): the process ran without exclusion from a revocation, so it is stopped (its
 * launch canceled and its process group killed at once, whether or not its launcher still answers).
 */
function stopUnlocked(
  command: string,
  started: StartedLaunch | undefined,
  stop: AbortController,
  error: LockCompromisedError,
  platform: NodeJS.Platform,
): string {
  stop.abort();
  if (started?.pid === undefined) return `${command} was not run: the lease lock was lost (${error.reason})`;
  killProcessTree(started.pid, platform);
  return `${command}: the lease lock was lost while the process started (${error.reason}); the process was killed`;
}
