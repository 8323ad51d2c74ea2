/**
 * Long generated tables (kubectl's option table: over a thousand rows) are
 * checked at every start-up, in a cold process where zod's per-row pipeline
 * (a run, a payload and an issue list per field) is most of the cost. A table
 * of such rows is read here by a plain predicate that vouches for a row only
 * when its zod schema would accept it unchanged; the first row it cannot vouch
 * for sends the whole table through zod, so what is refused, and every message
 * and path, is exactly the zod schema's: that schema stays the one definition.
 */
import * as z from "zod";

/**
 * A schema for an array of `row`: each element is taken from `plainRow` (the
 * row as `row` would output it) when that returns one, and the array is parsed
 * by `z.array(row)` as soon as it returns undefined for any element.
 *
 * `plainRow` must never vouch for an element `row` refuses, and must return
 * what `row` would output for it (defaults applied, the schema's key order).
 */
export function plainRowsSchema<S extends z.ZodType>(row: S, plainRow: (element: unknown) => z.output<S> | undefined): z.ZodType<z.output<S>[]> {
  const strict = z.array(row);
  return z.custom<unknown>().transform((value, ctx): z.output<S>[] => {
    const rows = Array.isArray(value) ? plainRows(value, plainRow) : undefined;
    if (rows !== undefined) return rows;
    const result = strict.safeParse(value);
    if (result.success) return result.data;
    // The issues keep their paths (relative to the array) and messages; the enclosing schemas prefix their own path.
    for (const issue of result.error.issues) ctx.addIssue({ ...issue });
    return z.NEVER;
  });
}

function plainRows<T>(elements: readonly unknown[], plainRow: (element: unknown) => T | undefined): T[] | undefined {
  const rows: T[] = [];
  for (const element of elements) {
    const row = plainRow(element);
    if (row === undefined) return undefined;
    rows.push(row);
  }
  return rows;
}

/** The own keys of `value` when it is a mapping (not null, not an array) whose every key is in `fields`. */
export function mappingWithin(value: unknown, fields: ReadonlySet<string>): Readonly<Record<string, unknown>> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  for (const key of Object.keys(value)) if (!fields.has(key)) return undefined;
  return value as Readonly<Record<string, unknown>>;
}
