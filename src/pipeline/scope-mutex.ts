/**
 * One lock per auth scope (invariant 7): calls that share an identity
 * provider's credential scope run their auth lifecycle one at a time, so a
 * session check or refresh never races another on the same credentials;
 * different scopes proceed in parallel. In-process only: auth-scope.ts puts
 * the state layer's file lock behind it, so the scope holds across processes.
 */
export class ScopeMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /**
   * Runs `task` once every earlier task of the same scope has settled. A caller whose `signal` aborts
   * while it waits leaves the queue at once (rejected with ScopeWaitCanceled, `task` never run): a
   * canceled call would otherwise hold its concurrency slot behind other calls' lifecycles, then run
   * its own for nobody. The tasks queued behind it still wait for the ones before it.
   */
  async run<T>(scope: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tails.get(scope) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(scope, tail);
    let ran = false;
    try {
      await untilAborted(previous, signal);
      ran = true;
      return await task();
    } finally {
      release();
      const forget = (): void => {
        if (this.tails.get(scope) === tail) this.tails.delete(scope);
      };
      // A waiter that left early is forgotten only once the tasks before it have settled, so a newcomer still waits for them.
      if (ran) forget();
      else void tail.then(forget);
    }
  }

  /** Scopes with a task running or waiting (for tests and diagnostics). */
  get busyScopes(): number {
    return this.tails.size;
  }
}

/**
 * A waiter's signal aborted before its turn: it left the queue and its task never ran. Its own class, so a
 * caller tells this apart from a failure of a task that did run while the call happened to be canceled.
 */
export class ScopeWaitCanceled extends Error {
  override readonly name = "ScopeWaitCanceled";

  constructor() {
    super("canceled while waiting for the scope");
  }
}

/** `promise`, or a ScopeWaitCanceled rejection as soon as `signal` aborts first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(new ScopeWaitCanceled());
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      reject(new ScopeWaitCanceled());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}
