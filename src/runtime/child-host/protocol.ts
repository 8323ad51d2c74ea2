/**
 * The messages between the MCP server and its child host, over the Node IPC
 * channel the server opened when it started the host (and nothing else).
 *
 * server → host: `launch` (the serialisable part of a LaunchRequest; the
 * redactor and the AbortSignal stay in the server) and `cancel`. On Linux the
 * launch carries the call's mark, drawn by the server (`callMark`): a host that
 * dies before its `spawned` report leaves the server a way to find the process.
 * host → server: `spawned` as soon as the process runs, then exactly one of
 * `result` (a LaunchResult, unredacted) or `failed` (a LaunchError's parts).
 *
 * Both sides check every message they read: the host ignores one it cannot
 * use; the server treats one from the host as a broken host (host-client.ts).
 */
import type { LaunchRequest, LaunchResult } from "../launcher.js";

/** What crosses to the host: everything of a LaunchRequest but the signal, the redactor and the platform. */
export type HostLaunchRequest = Pick<
  LaunchRequest,
  "executable" | "args" | "env" | "cwd" | "maxOutputBytes" | "timeoutMs" | "killGraceMs" | "windowsVerbatimArguments" | "callMark"
>;

export type ToHost = { readonly type: "launch"; readonly id: number; readonly request: HostLaunchRequest } | { readonly type: "cancel"; readonly id: number };

export type FromHost =
  | { readonly type: "ready" }
  | { readonly type: "spawned"; readonly id: number; readonly pid: number }
  | { readonly type: "result"; readonly id: number; readonly result: LaunchResult }
  | { readonly type: "failed"; readonly id: number; readonly code: string; readonly detail: string };

/** The child host failed while a launch was unfinished; its process, if it had one, was killed. */
export class ChildHostError extends Error {
  override readonly name = "ChildHostError";
}

/** The fields of `request` that cross to the host, named one by one (a new LaunchRequest field stays behind until added here). */
export function hostRequest(request: LaunchRequest): HostLaunchRequest {
  const { executable, args, env, cwd, maxOutputBytes, timeoutMs, killGraceMs, windowsVerbatimArguments, callMark } = request;
  return { executable, args, env, cwd, maxOutputBytes, timeoutMs, killGraceMs, windowsVerbatimArguments, callMark };
}

/** A mark as newCallMark draws it: 128 bits in hex. */
const isMark = (value: unknown): boolean => typeof value === "string" && /^[0-9a-f]{32}$/u.test(value);

type Fields = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function isStringRecord(value: unknown): value is Readonly<Record<string, string>> {
  return isRecord(value) && Object.values(value).every((entry) => typeof entry === "string");
}

const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isNumber = (value: unknown): boolean => typeof value === "number";

/** The launch request of a `launch` message, or undefined when a field is missing or of the wrong type. */
function hostRequestOf(value: unknown): HostLaunchRequest | undefined {
  if (!isRecord(value)) return undefined;
  const { executable, args, env, cwd, maxOutputBytes, timeoutMs, killGraceMs, windowsVerbatimArguments, callMark } = value;
  if (!optional(callMark, isMark)) return undefined;
  if (typeof executable !== "string" || !Array.isArray(args) || !args.every((arg) => typeof arg === "string") || !isStringRecord(env)) return undefined;
  if (!isNumber(maxOutputBytes) || !isNumber(timeoutMs) || !optional(killGraceMs, isNumber)) return undefined;
  if (!optional(cwd, (entry) => typeof entry === "string") || !optional(windowsVerbatimArguments, (entry) => typeof entry === "boolean")) return undefined;
  return {
    executable,
    args: args,
    env,
    cwd: cwd as string | undefined,
    maxOutputBytes: maxOutputBytes as number,
    timeoutMs: timeoutMs as number,
    killGraceMs: killGraceMs as number | undefined,
    windowsVerbatimArguments: windowsVerbatimArguments as boolean | undefined,
    callMark: callMark as string | undefined,
  };
}

/** A message the host can act on; undefined for anything else. */
export function parseToHost(message: unknown): ToHost | undefined {
  if (!isRecord(message) || !isId(message.id)) return undefined;
  if (message.type === "cancel") return { type: "cancel", id: message.id };
  if (message.type !== "launch") return undefined;
  const request = hostRequestOf(message.request);
  return request === undefined ? undefined : { type: "launch", id: message.id, request };
}

function isNullable(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === null || check(value);
}

/** A LaunchResult as the host sends it, every field checked. */
function resultOf(value: unknown): LaunchResult | undefined {
  if (!isRecord(value)) return undefined;
  const { exitCode, signal, stdout, stderr, truncated, timedOut, canceled, durationMs, pid, interleaving } = value;
  const flags = [truncated, timedOut, canceled].every((flag) => typeof flag === "boolean");
  if (!isNullable(exitCode, Number.isInteger) || !isNullable(signal, (entry) => typeof entry === "string") || !flags) return undefined;
  if (
    typeof stdout !== "string" ||
    typeof stderr !== "string" ||
    !isNumber(durationMs) ||
    !optional(pid, (value) => Number.isSafeInteger(value) && (value as number) > 1) ||
    !optional(interleaving, (runs) => Array.isArray(runs) && runs.every(isId))
  )
    return undefined;
  return {
    exitCode: exitCode as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout,
    stderr,
    truncated: truncated as boolean,
    timedOut: timedOut as boolean,
    canceled: canceled as boolean,
    durationMs: durationMs as number,
    pid: pid as number | undefined,
    interleaving: interleaving as readonly number[] | undefined,
  };
}

/** A well-formed message from the host; undefined for anything else (the server then gives up on that host). */
export function parseFromHost(message: unknown): FromHost | undefined {
  if (isRecord(message) && message.type === "ready" && Object.keys(message).length === 1) return { type: "ready" };
  if (!isRecord(message) || !isId(message.id)) return undefined;
  const { id } = message;
  switch (message.type) {
    case "spawned":
      return Number.isSafeInteger(message.pid) && (message.pid as number) > 1 ? { type: "spawned", id, pid: message.pid as number } : undefined;
    case "result": {
      const result = resultOf(message.result);
      return result === undefined ? undefined : { type: "result", id, result };
    }
    case "failed":
      return typeof message.code === "string" && typeof message.detail === "string"
        ? { type: "failed", id, code: message.code, detail: message.detail }
        : undefined;
    default:
      return undefined;
  }
}
