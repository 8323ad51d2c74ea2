import { describe, expect, it } from "vitest";
import * as z from "zod";
import { mappingWithin, plainRowsSchema } from "../../../src/config/plain-rows.js";

const row = z.strictObject({ name: z.string().regex(/^--[a-z]+$/, { error: "bad name" }), repeatable: z.boolean().default(false) });
type Row = z.output<typeof row>;

/** Vouches for a row only when it has a string name starting with "--" (looser than `row`: the fallback must catch the rest). */
function looseRow(element: unknown): Row | undefined {
  const fields = mappingWithin(element, new Set(["name", "repeatable"]));
  if (fields === undefined || typeof fields.name !== "string" || !fields.name.startsWith("--")) return undefined;
  return { name: fields.name, repeatable: fields.repeatable === true };
}

const table = z.strictObject({ rows: plainRowsSchema(row, looseRow).default([]) });

describe("plainRowsSchema", () => {
  it("takes every row from the plain reading when it vouches for all of them", () => {
    // A marker only the plain reading can produce: its rows, not zod's, are the output.
    const marked = plainRowsSchema(row, (element) => ({ name: `plain:${String((element as { name: unknown }).name)}`, repeatable: true }));
    expect(marked.parse([{ name: "--a" }, { name: "--b" }])).toEqual([
      { name: "plain:--a", repeatable: true },
      { name: "plain:--b", repeatable: true },
    ]);
  });

  it("gives what z.array(row) gives for rows the plain reading refuses", () => {
    const rows = [{ name: "--a" }, { name: "--b", repeatable: true }];
    const nothing = plainRowsSchema(row, () => undefined);
    expect(nothing.parse(rows)).toEqual(z.array(row).parse(rows));
  });

  it("reports zod's issues, paths and messages, under the enclosing field", () => {
    const input = { rows: [{ name: "--ok" }, { name: "--Bad" }, { name: "--x", extra: 1 }, { name: 3 }] };
    const result = table.safeParse(input);
    expect(result.success).toBe(false);
    const expected = z.strictObject({ rows: z.array(row) }).safeParse(input);
    expect(result.error?.issues.map(({ path, message, code }) => ({ path, message, code }))).toEqual(
      expected.error?.issues.map(({ path, message, code }) => ({ path, message, code })),
    );
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([
      ["rows", 1, "name"],
      ["rows", 2],
      ["rows", 3, "name"],
    ]);
  });

  it("refuses a value that is not an array as z.array does, and applies an enclosing default", () => {
    expect(table.safeParse({ rows: "--a" }).error?.issues[0]).toMatchObject({ path: ["rows"], code: "invalid_type", expected: "array" });
    expect(table.parse({})).toEqual({ rows: [] });
  });
});

describe("mappingWithin", () => {
  it("accepts only a mapping whose own keys are all listed", () => {
    const fields = new Set(["a", "b"]);
    expect(mappingWithin({ a: 1 }, fields)).toEqual({ a: 1 });
    expect(mappingWithin({ a: 1, c: 2 }, fields)).toBeUndefined();
    expect(mappingWithin(JSON.parse('{"__proto__": 1}'), fields)).toBeUndefined();
    expect(mappingWithin([], fields)).toBeUndefined();
    expect(mappingWithin(null, fields)).toBeUndefined();
    expect(mappingWithin("a", fields)).toBeUndefined();
  });
});
