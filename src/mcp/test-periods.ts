/**
 * Periods of the server that only tests shorten, read from its environment:
 * TORII_CHILD_HOST_IDLE_MS (how long an idle child host is kept),
 * TORII_CHILD_HOST_SPAWN_DEADLINE_MS (how long a launch waits for its first
 * answer), TORII_KILL_GRACE_MS (how long a process has between SIGTERM and
 * SIGKILL), TORII_STDOUT_DRAIN_MS (how long a shut-down server waits for its
 * client to read stdout) and TORII_STDOUT_STALL_MS (how long a full stdout may
 * take nothing before the server gives up on its client; 0: never). A small module of its own: the server's entry reads
 * one of them without loading the call path, which it loads lazily.
 */
import { MAX_TIMER_MS } from "../runtime/timers.js";

/**
 * The non-negative integer number of milliseconds `env[name]` holds, at most MAX_TIMER_MS; `fallback` when it
 * is unset, empty (Number("") is 0: TORII_STDOUT_STALL_MS= turned the stall bound off) or anything else.
 */
export function millisecondsFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text.trim() === "") return fallback;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= 0 ? Math.min(value, MAX_TIMER_MS) : fallback;
}
