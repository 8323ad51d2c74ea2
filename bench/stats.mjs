// Shared figures for the benchmarks: percentiles over raw samples.

/** Returns the q-quantile (0..1) of numeric samples (nearest-rank). */
export function quantile(samples, q) {
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function median(samples) {
  return quantile(samples, 0.5);
}

export function formatMicros(nanos) {
  return `${(nanos / 1000).toFixed(2)} µs`;
}
