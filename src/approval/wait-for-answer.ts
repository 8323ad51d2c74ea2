/**
 * Waits for a pending approval to change, on events rather than sleeps: a
 * `fs.watch` on the approvals directory (an answer from `torii approvals` in
 * another process lands there as a rename), an in-process nudge (the page's
 * answer), the deadline, and the agent's cancellation. `fs.watch` can miss an
 * event (network file systems, some containers), so a bounded fallback re-reads
 * the file every FALLBACK_MS as well.
 */
import { watch, type FSWatcher } from "node:fs";

/** The longest an answer can go unnoticed when the file-system watch misses it. */
export const FALLBACK_MS = 1000;

export type WaitEnd<T> = { readonly kind: "changed"; readonly value: T } | { readonly kind: "timeout" } | { readonly kind: "aborted" };

export interface WaitOptions<T> {
  /** The directory holding the approval file. */
  readonly dir: string;
  /** Returns a value when the approval has been answered (or otherwise changed), undefined to keep waiting. */
  readonly check: () => T | undefined;
  /** Milliseconds until the deadline. */
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Registers a callback the caller invokes to re-check at once (the page's answer in this process). */
  readonly onNudge?: (nudge: () => void) => () => void;
}

/** Resolves with the first of: a change `check` reports, the deadline, the abort. Never rejects. */
export function waitForAnswer<T>(options: WaitOptions<T>): Promise<WaitEnd<T>> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined;
    let done = false;
    const cleanups: (() => void)[] = [];
    const finish = (end: WaitEnd<T>): void => {
      if (done) return;
      done = true;
      for (const cleanup of cleanups) cleanup();
      watcher?.close();
      resolve(end);
    };
    const recheck = (): void => {
      if (done) return;
      let value: T | undefined;
      try {
        value = options.check();
      } catch {
        value = undefined; // an unreadable file answers nothing; the deadline still comes
      }
      if (value !== undefined) finish({ kind: "changed", value });
    };

    if (options.signal.aborted) {
      finish({ kind: "aborted" });
      return;
    }
    const onAbort = (): void => {
      finish({ kind: "aborted" });
    };
    options.signal.addEventListener("abort", onAbort, { once: true });
    cleanups.push(() => {
      options.signal.removeEventListener("abort", onAbort);
    });
    const deadline = setTimeout(() => {
      finish({ kind: "timeout" });
    }, options.timeoutMs);
    cleanups.push(() => {
      clearTimeout(deadline);
    });
    const fallback = setInterval(recheck, FALLBACK_MS);
    cleanups.push(() => {
      clearInterval(fallback);
    });
    if (options.onNudge !== undefined) cleanups.push(options.onNudge(recheck));
    try {
      watcher = watch(options.dir, { persistent: false }, recheck);
      watcher.on("error", () => {
        watcher?.close(); // the fallback keeps checking
      });
    } catch {
      // No watch on this file system: the fallback alone notices answers.
    }
    recheck();
  });
}
