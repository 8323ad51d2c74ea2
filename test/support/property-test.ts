/**
 * A fast-check property as a vitest test: `prop(arbitraries, params)(name, predicate)`,
 * what @fast-check/vitest's `test.prop` did for these files (none has a beforeEach or
 * afterEach hook, which it also ran around every run). Importing @fast-check/vitest 0.5
 * under vitest 4 cost ~3 s of CPU in each worker that ran one of these files: when it
 * loads it walks vitest's chainable `test` through every ordering of its modifiers.
 */
import fc from "fast-check";
import { test } from "vitest";

export { fc };

/** Registers a test asserting `predicate` for values of `arbitraries` (a random seed unless `params` gives one). */
export function prop<Ts extends [unknown, ...unknown[]]>(
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  params?: fc.Parameters<Ts>,
): (name: string, predicate: (...values: Ts) => unknown, timeout?: number) => void {
  return (name, predicate, timeout) => {
    test(
      name,
      async () => {
        // As fast-check reads a predicate's result: false fails the run, anything else (an expect's silence) passes it.
        const holds = async (...values: Ts): Promise<boolean> => (await predicate(...values)) !== false;
        await fc.assert(fc.asyncProperty<Ts>(...arbitraries, holds), params);
      },
      timeout,
    );
  };
}
