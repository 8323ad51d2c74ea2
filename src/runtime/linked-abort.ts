/**
 * An AbortController that follows other signals: what `AbortSignal.any` gives,
 * for a tenth of its cost. Node 20's `AbortSignal.any` registers the result
 * with every source through weak references and a finalization registry (about
 * 30-50 µs a call here, and garbage for the collector); a call's own controller
 * with one listener per source, removed when the call ends, is all a call needs.
 */

/** A controller linked to its sources until `unlink()`. */
export interface LinkedAbort {
  readonly controller: AbortController;
  /** Detaches the controller from its sources (call it when the work it guards has ended). */
  unlink(): void;
}

/**
 * A controller that aborts, with the same reason, as soon as any of `sources`
 * does (at once when one already has).
 */
export function linkedAbort(sources: readonly AbortSignal[]): LinkedAbort {
  const controller = new AbortController();
  const aborted = sources.find((source) => source.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return { controller, unlink: () => undefined };
  }
  const follow = (event: Event): void => {
    unlink();
    controller.abort((event.target as AbortSignal).reason);
  };
  const unlink = (): void => {
    for (const source of sources) source.removeEventListener("abort", follow);
  };
  for (const source of sources) source.addEventListener("abort", follow, { once: true });
  return { controller, unlink };
}
