/**
 * What in a parsed JSON message would not reach the tools as the client sent
 * it, so the transport refuses the message (./inbound.ts):
 *
 * - a string (value or key) that is not well-formed UTF-16. `JSON.parse`
 *   turns a `\ud800` escape into a lone surrogate; written to a child's argv
 *   it becomes U+FFFD, so the policy would have judged a different token from
 *   the one that runs;
 * - a key named `__proto__`. `JSON.parse` makes it an own property, but the
 *   SDK copies `params.arguments` into a new object, where assigning
 *   `__proto__` sets the prototype instead: the key vanished before the strict
 *   envelope check could refuse it as unknown, and its value became the
 *   prototype of the arguments the tool reads.
 */

const LONE_SURROGATE = /\p{Cs}/u;

/** The first problem in `value`, named without quoting it; undefined when there is none. */
export function contentProblem(value: unknown): string | undefined {
  // Iterative: a deeply nested message must not exhaust the stack.
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === "string") {
      if (LONE_SURROGATE.test(next)) return "a string holds a lone UTF-16 surrogate";
    } else if (Array.isArray(next)) {
      for (const element of next as unknown[]) pending.push(element); // no spread: arrays may be huge
    } else if (typeof next === "object" && next !== null) {
      for (const [key, child] of Object.entries(next)) {
        if (LONE_SURROGATE.test(key)) return "a string holds a lone UTF-16 surrogate";
        if (key === "__proto__") return "a key is named __proto__";
        pending.push(child);
      }
    }
  }
  return undefined;
}
