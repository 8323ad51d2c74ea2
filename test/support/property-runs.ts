/**
 * Run counts of the CPU-heavy property suites (the policy's, and the redaction's
 * encoder spellings). `npm test` runs a quarter of
 * each (same seeds); `npm run test:properties`, which `.ci/run` also runs, sets
 * TORII_PROPERTY_RUNS=full and runs every one. The floors on interesting runs are
 * fractions of the count, so they scale with it.
 */
export function propertyRuns(full: number): number {
  return process.env.TORII_PROPERTY_RUNS === "full" ? full : Math.ceil(full / 4);
}
