/**
 * How the probe's SDK runs a `credential_process`: as the AWS CLI of the call
 * would, not as the SDK would by itself. The SDK hands the line to `/bin/sh`
 * with the server's own environment and working directory; the CLI splits it
 * and starts the program without a shell, with the child's environment (its
 * `.env` layers, pinned values, version pins and reduced PATH). A helper whose
 * answer depends on its environment (aws-vault's `AWS_VAULT_BACKEND`, a
 * `.env` token) must give the probe the answer it gives the CLI.
 *
 * The SDK's process provider takes its `exec` from `externalDataInterceptor`'s
 * token record when one is there (@aws-sdk/credential-provider-process); this
 * module puts its runner there once, and the runner takes the child's
 * environment and place from the probe that is running (AsyncLocalStorage: two
 * probes of different targets may run at once). Outside a probe it runs
 * nothing (fail closed). The hook is internal to the SDK: before every check,
 * sdk-hook-check.ts makes sure the SDK still calls it, and the check is
 * refused when it does not (the SDK would run the line its own way).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { exec, spawn } from "node:child_process";
import { externalDataInterceptor } from "@smithy/core/config";
import type { ProcessPlace } from "./aws-call-plan.js";
import { ProbeRefusal } from "./probe-refusal.js";
import { planCredentialProcess } from "./process-program.js";

/** What a running probe gives its credential_process. */
export interface ProcessRun {
  readonly env: Readonly<Record<string, string>>;
  readonly place: ProcessPlace;
  /** Ends the probe; a process still running is killed. */
  readonly signal: AbortSignal;
  /** A refusal met while the SDK ran the line (the SDK would report it as missing credentials). */
  refusal?: ProbeRefusal;
  /** Set once the SDK's resolution has settled: what it schedules later still runs in this run's context. */
  settled?: boolean;
}

/** The most a credential_process may print (a credentials document is a few hundred bytes). */
export const PROCESS_OUTPUT_LIMIT = 1024 * 1024;

const current = new AsyncLocalStorage<ProcessRun>();

/** A run of the SDK hook check (sdk-hook-check.ts): the runner notes that the SDK called it and starts nothing. */
interface HookCheck {
  ran: boolean;
}
const checking = new AsyncLocalStorage<HookCheck>();

/** What the runner prints for the hook check: credentials of no account, never sent anywhere. */
export const HOOK_CHECK_KEY_ID = "AKIATORIIHOOKCHECK";
const HOOK_CHECK_ANSWER = JSON.stringify({ Version: 1, AccessKeyId: HOOK_CHECK_KEY_ID, SecretAccessKey: "torii-hook-check" });

type Callback = (error: Error | null, result?: { stdout: string; stderr: string }) => void;

/** Runs `line` as the probe in `current` says, or fails: the shape the SDK's promisified `exec` expects. */
function runCredentialProcess(line: string, callback: Callback): void {
  const check = checking.getStore();
  if (check !== undefined) {
    check.ran = true;
    callback(null, { stdout: HOOK_CHECK_ANSWER, stderr: "" });
    return;
  }
  const run = current.getStore();
  if (run === undefined) {
    callback(new Error("a credential_process outside an account check is not run"));
    return;
  }
  // The SDK may go on after the check gave up (a timeout, a canceled call), or call again from work it
  // scheduled during the resolution: nothing starts for a resolution that has ended.
  if (run.signal.aborted || run.settled === true) {
    callback(new Error("the account check has ended"));
    return;
  }
  let plan;
  try {
    plan = planCredentialProcess(line, "an AWS profile of the chain", run.env, run.place);
  } catch (error) {
    if (error instanceof ProbeRefusal) run.refusal = error;
    callback(error as Error);
    return;
  }
  if (plan.kind === "shell") {
    exec(
      plan.line,
      { env: run.env, cwd: run.place.cwd, signal: run.signal, killSignal: "SIGKILL", maxBuffer: PROCESS_OUTPUT_LIMIT, windowsHide: true },
      (error, stdout, stderr) => {
        callback(error, { stdout, stderr });
      },
    );
    return;
  }
  const child = spawn(plan.file, plan.args, {
    env: run.env,
    cwd: run.place.cwd,
    signal: run.signal,
    // A helper may ignore SIGTERM (the signal's default kill): it must not outlive the check.
    killSignal: "SIGKILL",
    stdio: ["ignore", "pipe", "pipe"],
    shell: false,
    windowsHide: true,
  });
  const out: Buffer[] = [];
  let size = 0;
  let failed: Error | undefined;
  let answered = false;
  const answer = (error: Error | undefined): void => {
    if (answered) return;
    answered = true;
    // stderr is not kept: a helper may print a secret there, and the SDK would put it in the error message.
    if (error === undefined) callback(null, { stdout: Buffer.concat(out).toString("utf8"), stderr: "" });
    else callback(error);
  };
  const collect = (chunk: Buffer, keep: boolean): void => {
    size += chunk.length;
    if (size > PROCESS_OUTPUT_LIMIT) {
      failed ??= new Error("the credential_process printed more than the probe reads");
      child.kill("SIGKILL");
    } else if (keep) out.push(chunk);
  };
  child.stdout.on("data", (chunk: Buffer) => {
    collect(chunk, true);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    collect(chunk, false);
  });
  child.on("error", (error) => {
    failed ??= error;
    // A program that could not start emits no "close".
    if (child.pid === undefined) answer(failed);
  });
  child.on("close", (code, signal) => {
    if (failed === undefined && code !== 0) failed = new Error(`the credential_process ended with ${signal ?? `exit code ${String(code)}`}`);
    answer(failed);
  });
}

// Installed once, when the probe's module loads (it is imported lazily, with the SDK).
externalDataInterceptor.interceptToken("exec", runCredentialProcess);

/** Runs `work` (the SDK's credential resolution) with `run` as the environment of any credential_process it starts. */
export function withProcessRun<T>(run: ProcessRun, work: () => Promise<T>): Promise<T> {
  return current.run(run, work).finally(() => {
    run.settled = true;
  });
}

/** Runs `work` (the SDK hook check's resolution) and says whether the SDK handed a credential_process to this runner. */
export async function runnerCalledDuring(work: () => Promise<unknown>): Promise<boolean> {
  const check: HookCheck = { ran: false };
  try {
    await checking.run(check, work);
  } catch {
    // What failed is told by `ran` (and by the caller's own look at the answer).
  }
  return check.ran;
}
