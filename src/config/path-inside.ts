/**
 * Whether one path lies at or below another: the one test the configuration
 * root's trust walk, the client files Torii writes and the launch check share,
 * so "inside" cannot mean one thing for one and another for the other.
 */
import path from "node:path";

/**
 * Whether `candidate` is `bound` or below it; both absolute. `path.relative`
 * normalises both and, on Windows, ignores case as its file names do; a
 * sibling sharing a prefix (`/a/bc` beside `/a/b`) is not inside.
 */
export function isInside(candidate: string, bound: string): boolean {
  const relative = path.relative(bound, candidate);
  return relative === "" || (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative));
}
