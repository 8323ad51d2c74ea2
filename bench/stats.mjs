// Shared figures for the benchmarks: percentiles over raw samples, paired differences.

/** Returns the q-quantile (0..1) of numeric samples (nearest-rank). */
export function quantile(samples, q) {
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank];
}

export function median(samples) {
  return quantile(samples, 0.5);
}

/** The median of the run-by-run differences `a[i] - b[i]` (not the difference of the medians). */
export function pairedMedian(a, b) {
  return median(a.map((value, i) => value - b[i]));
}

/** The median of the run-by-run ratios `a[i] / b[i]`. */
export function pairedRatio(a, b) {
  return median(a.map((value, i) => value / b[i]));
}

export function formatMicros(nanos) {
  return `${(nanos / 1000).toFixed(2)} µs`;
}

export function ms(value) {
  return `${value.toFixed(2)} ms`;
}
