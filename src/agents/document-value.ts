/**
 * Reading and comparing plain parsed values (JSON or TOML documents), shared by
 * the file formats and the status check.
 */

/** The value at `path` inside `root`, or undefined when any step is missing. */
export function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let current: unknown = root;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** Structural equality of parsed values (object key order ignored, array order kept). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((key) => Object.hasOwn(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * A copy of `root` without the member at `path`, and without the parents that
 * removal leaves empty (used to prove an edit touched nothing else).
 */
export function withoutValueAt(root: unknown, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  if (head === undefined || typeof root !== "object" || root === null || Array.isArray(root)) return root;
  const entries = Object.entries(root as Record<string, unknown>).flatMap(([key, value]): [string, unknown][] => {
    if (key !== head) return [[key, value]];
    if (rest.length === 0) return [];
    const child = withoutValueAt(value, rest);
    const emptied = typeof child === "object" && child !== null && !Array.isArray(child) && Object.keys(child).length === 0;
    return emptied ? [] : [[key, child]];
  });
  return Object.fromEntries(entries);
}
