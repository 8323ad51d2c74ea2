/**
 * One lock per auth scope (invariant 7): calls that share an identity
 * provider's credential scope run their auth lifecycle one at a time, so a
 * session check or refresh never races another on the same credentials;
 * different scopes proceed in parallel. In-process only: auth-scope.ts puts
 * the state layer's file lock behind it, so the scope holds across processes.
 */
export class ScopeMutex {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `task` once every earlier task of the same scope has settled. */
  async run<T>(scope: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(scope) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(scope, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      if (this.tails.get(scope) === tail) this.tails.delete(scope);
    }
  }

  /** Scopes with a task running or waiting (for tests and diagnostics). */
  get busyScopes(): number {
    return this.tails.size;
  }
}
