/**
 * A manual clock for the launcher's and the child host's timers (src/runtime/timers.ts):
 * nothing fires until the test moves the clock, so a test fires a timeout or a
 * deadline right after the event it waits for, and a loaded machine can only
 * make it slower, never change what it sees.
 */
import type { CancelTimer, Timers } from "../../src/runtime/timers.js";

interface Pending {
  readonly at: number;
  readonly callback: () => void;
}

export class ManualTimers implements Timers {
  #now = 0;
  readonly #pending = new Set<Pending>();
  /** The delay of every timer ever set, in the order they were set. */
  readonly requested: number[] = [];

  now(): number {
    return this.#now;
  }

  after(ms: number, callback: () => void): CancelTimer {
    const entry: Pending = { at: this.#now + ms, callback };
    this.#pending.add(entry);
    this.requested.push(ms);
    return () => {
      this.#pending.delete(entry);
    };
  }

  /** How far ahead of now each pending timer is due, soonest first. */
  get pending(): number[] {
    return [...this.#pending].map((entry) => entry.at - this.#now).sort((a, b) => a - b);
  }

  /** Moves the clock `ms` ahead, running every timer that falls due on the way, in order; returns how many ran. */
  advance(ms: number): number {
    const until = this.#now + ms;
    let ran = 0;
    for (let next = this.#due(until); next !== undefined; next = this.#due(until)) {
      this.#pending.delete(next);
      this.#now = next.at;
      next.callback();
      ran += 1;
    }
    this.#now = until;
    return ran;
  }

  #due(until: number): Pending | undefined {
    let soonest: Pending | undefined;
    for (const entry of this.#pending) if (entry.at <= until && (soonest === undefined || entry.at < soonest.at)) soonest = entry;
    return soonest;
  }
}
