/**
 * Whether a parsed JSON value holds a string (value or key) that is not
 * well-formed UTF-16. `JSON.parse` turns a `\ud800` escape into a lone
 * surrogate; written to a child's argv it becomes U+FFFD, so the policy would
 * have judged a different token from the one that runs.
 */

const LONE_SURROGATE = /\p{Cs}/u;

/** Walks `value` iteratively (a deeply nested message must not exhaust the stack). */
export function hasLoneSurrogate(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === "string") {
      if (LONE_SURROGATE.test(next)) return true;
    } else if (Array.isArray(next)) {
      for (const element of next as unknown[]) pending.push(element); // no spread: arrays may be huge
    } else if (typeof next === "object" && next !== null) {
      for (const [key, child] of Object.entries(next)) {
        if (LONE_SURROGATE.test(key)) return true;
        pending.push(child);
      }
    }
  }
  return false;
}
