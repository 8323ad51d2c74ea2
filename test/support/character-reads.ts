/**
 * Counts the characters code reads (String.prototype.charCodeAt calls on any string) while `work` runs: the
 * work-counting redaction tests bound reads per character instead of timing anything. Counts only code that reads
 * through charCodeAt: a rewrite of the code under test to another primitive would need the count moved with it.
 */
export function readsOf<T>(work: () => T): { readonly reads: number; readonly result: T } {
  const charCodeAt = String.prototype.charCodeAt;
  let reads = 0;
  String.prototype.charCodeAt = function (this: string, index: number) {
    reads += 1;
    return charCodeAt.call(this, index);
  };
  try {
    return { result: work(), reads };
  } finally {
    String.prototype.charCodeAt = charCodeAt;
  }
}
