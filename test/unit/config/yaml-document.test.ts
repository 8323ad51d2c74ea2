import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseYamlDocument, readYamlDocument } from "../../../src/config/yaml-document.js";
import { catchConfigError, expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

const FILE = "/cfg/sample.yaml";

const schema = z.strictObject({
  name: z.string(),
  count: z.number().default(1),
  nested: z.strictObject({ items: z.array(z.string()).default([]), flag: z.boolean().optional() }).optional(),
});

const parse = (text: string) => parseYamlDocument(FILE, text, schema);

describe("YAML syntax errors carry line and column", () => {
  it("reports a duplicate key where the second one is written", () => {
    expectConfigErrorAt(() => parse(yaml("name: a", "count: 1", "name: b")), FILE, 3, 1, /YAML syntax: Map keys must be unique$/);
  });

  it("reports a bad indent", () => {
    expectConfigErrorAt(() => parse(yaml("name: a", "nested:", "  items: []", " flag: true")), FILE, 4, 1, /YAML syntax: .*same column/);
  });

  it("reports an unclosed quote", () => {
    expectConfigErrorAt(() => parse(yaml("name: 'a", "count: 1")), FILE, 3, 1, /YAML syntax: Missing closing/);
  });

  it("treats warnings such as an unresolved tag as errors, without quoting the tag", () => {
    const error = expectConfigErrorAt(() => parse(yaml("name: !secret a")), FILE, 1, 7, /YAML syntax: a tag this file does not support/);
    expect(error.message).not.toContain("secret");
  });

  it("refuses more than one document", () => {
    expectConfigErrorAt(() => parse(yaml("name: a", "---", "name: b")), FILE, 2, 1, /multiple documents/);
  });
});

describe("document shape", () => {
  it.each([[""], ["# only a comment\n"], ["\n\n"]])("calls an empty document empty: %j", (text) => {
    const error = catchConfigError(() => parse(text));
    expect(error.message).toBe(`${FILE}: is empty; expected a YAML map of fields`);
  });

  it("accepts an empty document as {} when allowed", () => {
    const doc = parseYamlDocument(FILE, "# nothing\n", z.strictObject({ count: z.number().default(7) }), { allowEmpty: true });
    expect(doc.value).toEqual({ count: 7 });
  });

  it("refuses a list at the root", () => {
    expectConfigErrorAt(() => parse(yaml("# comment", "- name: a")), FILE, 2, 1, /top level must be a map of fields, found a list/);
  });

  it("refuses a scalar at the root", () => {
    expectConfigErrorAt(() => parse(yaml("hello")), FILE, 1, 1, /found the value "hello"/);
  });

  it("refuses an alias bomb with the yaml alias limit", () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let level = 1; level < 8; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const current = String.fromCharCode(97 + level);
      levels.push(`${current}: &${current} [${Array.from({ length: 10 }, () => `*${previous}`).join(", ")}]`);
    }
    const error = catchConfigError(() => parseYamlDocument(FILE, yaml(...levels), z.unknown()));
    expect(error.message).toMatch(/^\/cfg\/sample\.yaml: cannot be read as data: .*alias/i);
  });

  it("resolves ordinary anchors and aliases", () => {
    const doc = parseYamlDocument(FILE, yaml("a: &x [1, 2]", "b: *x"), z.strictObject({ a: z.array(z.number()), b: z.array(z.number()) }));
    expect(doc.value.b).toEqual([1, 2]);
  });
});

describe("schema issues are mapped back to positions", () => {
  it("points an unknown top-level field at its key", () => {
    const error = expectConfigErrorAt(() => parse(yaml("name: a", "count: 2", "", "colour: red")), FILE, 4, 1, /unknown field "colour"$/);
    expect([error.line, error.column]).toEqual([4, 1]);
  });

  it("points a nested unknown field at its key (line 4, column 3)", () => {
    expectConfigErrorAt(() => parse(yaml("name: a", "nested:", "  items: []", "  colour: red")), FILE, 4, 3, /nested: unknown field "colour"$/);
  });

  it("points a missing required field at the map it is missing from", () => {
    expectConfigErrorAt(() => parse(yaml("# header", "count: 2")), FILE, 2, 1, /missing required field "name"$/);
  });

  it("points a wrong type at the value", () => {
    expectConfigErrorAt(() => parse(yaml("name: a", "count: many")), FILE, 2, 8, /count: Invalid input: expected number, received string/);
  });

  it("points into lists by index", () => {
    expectConfigErrorAt(() => parse(yaml("name: a", "nested:", "  items:", "    - ok", "    - 12")), FILE, 5, 7, /nested\.items\[1\]: .*expected string/);
  });

  it("points an empty value at its key rather than the end of the line", () => {
    expectConfigErrorAt(() => parse(yaml("name:", "count: 1")), FILE, 1, 1, /name: .*expected string, received null/);
  });

  it("lists every problem in file order (not schema order), each with its position", () => {
    const error = catchConfigError(() => parse(yaml("extra: 1", "count: x", "name: 3")));
    expect(error.message.split("\n")).toEqual([
      `${FILE}:1:1: unknown field "extra"`,
      `${FILE}:2:8: count: Invalid input: expected number, received string`,
      `${FILE}:3:7: name: Invalid input: expected string, received number`,
    ]);
    expect([error.line, error.column]).toEqual([1, 1]);
    expect(error.related).toHaveLength(2);
  });
});

describe("positionOf", () => {
  const doc = parse(yaml("name: a", "nested:", "  items:", "    - one", "    - two"));

  it("locates values, keys and list items", () => {
    expect(doc.positionOf(["nested", "items", 1])).toEqual({ line: 5, column: 7 });
    expect(doc.positionOf(["nested", "items"], "key")).toEqual({ line: 3, column: 3 });
    expect(doc.positionOf(["name"])).toEqual({ line: 1, column: 7 });
  });

  it("falls back to the nearest existing ancestor", () => {
    expect(doc.positionOf(["nested", "flag"])).toEqual({ line: 3, column: 3 });
  });

  it("builds errors at a path for cross-field rules", () => {
    expect(doc.errorAt(["name"], "clash").message).toBe(`${FILE}:1:7: clash`);
  });
});

describe("readYamlDocument", () => {
  it("names a missing file without a position", () => {
    const file = path.join(tempDir(), "absent.yaml");
    const error = catchConfigError(() => readYamlDocument(file, schema));
    expect(error.message).toBe(`${file}: file not found`);
  });

  it("refuses a directory where a file is expected", () => {
    const root = tempDir();
    writeTree(root, { "dir.yaml/inner": "x" });
    expect(catchConfigError(() => readYamlDocument(path.join(root, "dir.yaml"), schema)).detail).toBe("is a directory, expected a file");
  });

  it("reads and validates a file from disk", () => {
    const root = tempDir();
    writeTree(root, { "ok.yaml": yaml("name: disk") });
    expect(readYamlDocument(path.join(root, "ok.yaml"), schema).value).toEqual({ name: "disk", count: 1 });
  });
});
