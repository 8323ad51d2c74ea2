/**
 * The clock and one-shot timers of a launch (its timeout, kill grace, drain and
 * backstop) and of a child host's answer deadlines, behind one small interface.
 *
 * The product always uses SYSTEM_TIMERS. A test injects a manual clock instead,
 * so it fires a deadline on an event ("the child is ready", "the host's answer
 * waits in the channel") rather than racing a real timer against a loaded
 * machine: a slower machine then only makes the test take longer, never fail.
 */
import { performance } from "node:perf_hooks";

/**
 * The longest period a timer keeps (2^31 - 1 ms, about 24.8 days): Node runs a longer setTimeout after 1 ms
 * (TimeoutOverflowWarning). Every configurable period is capped at it or refused past it.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Cancels a timer; calling it again, or after the timer ran, does nothing. */
export type CancelTimer = () => void;

export interface Timers {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /**
   * Calls `callback` once, `ms` from now. With `unref`, a pending timer does
   * not keep the process alive.
   */
  after(ms: number, callback: () => void, unref?: boolean): CancelTimer;
}

/** Node's own timers and performance.now(). */
export const SYSTEM_TIMERS: Timers = Object.freeze({
  now: () => performance.now(),
  after(ms: number, callback: () => void, unref = false): CancelTimer {
    const timer = setTimeout(callback, ms);
    if (unref) timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
});
