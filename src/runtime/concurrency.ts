/**
 * A counting semaphore for `max_concurrent_calls`: at most `limit` calls hold
 * a slot; the rest wait in arrival order. A waiting call can be canceled (the
 * client gave up), and the queue can be bounded so that a flood of calls is
 * refused instead of piling up (threat model §6).
 */

/** Gives the slot back. Calling it more than once has no further effect. */
export type Release = () => void;

export interface SemaphoreOptions {
  /** How many calls may wait; a further acquire rejects with SemaphoreFullError. Unbounded when absent. */
  readonly maxWaiting?: number;
}

/** The wait queue is full: the call is refused rather than queued. */
export class SemaphoreFullError extends Error {
  override readonly name = "SemaphoreFullError";

  constructor(limit: number, maxWaiting: number) {
    super(`too many concurrent calls: ${limit} running and ${maxWaiting} waiting`);
  }
}

interface Waiter {
  readonly grant: (release: Release) => void;
}

export class Semaphore {
  readonly limit: number;
  readonly #maxWaiting: number;
  readonly #waiters: Waiter[] = [];
  #available: number;

  constructor(limit: number, options: SemaphoreOptions = {}) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError("a semaphore needs a limit of at least 1");
    const maxWaiting = options.maxWaiting ?? Number.POSITIVE_INFINITY;
    if (!(maxWaiting >= 0)) throw new RangeError("maxWaiting must be zero or more");
    this.limit = limit;
    this.#available = limit;
    this.#maxWaiting = maxWaiting;
  }

  /** Slots free right now. */
  get available(): number {
    return this.#available;
  }

  /** Calls waiting for a slot. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Resolves with a release function once a slot is free, first come first
   * served. If `signal` aborts while waiting, the call leaves the queue and the
   * promise rejects with the signal's reason; an aborted signal rejects at once.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    // Only when nobody waits: a free slot never lets a newcomer overtake the queue.
    if (this.#available > 0 && this.#waiters.length === 0) {
      this.#available -= 1;
      return Promise.resolve(this.#releaser());
    }
    if (this.#waiters.length >= this.#maxWaiting) return Promise.reject(new SemaphoreFullError(this.limit, this.#maxWaiting));

    return new Promise<Release>((resolve, reject) => {
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(abortReason(signal));
      };
      const waiter: Waiter = {
        grant: (release) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the oldest waiter, so it is never observed free in between.
      const next = this.#waiters.shift();
      if (next === undefined) this.#available += 1;
      else next.grant(this.#releaser());
    };
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException("The operation was aborted", "AbortError");
}
