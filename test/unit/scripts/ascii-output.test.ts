/**
 * scripts/ascii-output.mjs, the build step that keeps the bundles ASCII: it
 * rewrites comments only (found by a real parser, so `//` in a string or a
 * regular expression is no comment), keeps every column in place for the
 * source maps, and fails the build on a non-ASCII character in code, naming
 * file, line and column.
 */
import { describe, expect, test } from "vitest";
import { asciiOnly, NonAsciiCodeError } from "../../../scripts/ascii-output.mjs";

describe("asciiOnly", () => {
  test("a comment's em dash, ellipsis and quotes become ASCII of the same length; the code is untouched", () => {
    const source = '// a \u2014 b \u2026 \u201Cc\u201D\n/** d \u2019 e */ const x = "\\u2014";\nexport { x };\n';
    const ascii = asciiOnly(source, "chunk.js");
    expect(ascii).toBe('// a - b . "c"\n/** d \' e */ const x = "\\u2014";\nexport { x };\n');
    expect(ascii).toHaveLength(source.length);
    expect(ascii).toMatch(/^[^\u0080-\uFFFF]*$/);
  });

  test("a character outside the look-alike table, even beyond the BMP, becomes one '?' per UTF-16 unit", () => {
    const source = "/* \u00B9 \u{1F600} */ export const y = 1;\n";
    expect(asciiOnly(source, "chunk.js")).toBe("/* ? ?? */ export const y = 1;\n");
  });

  test("the esbuild path comments and a file with nothing to rewrite stay as they are", () => {
    const source = "#!/usr/bin/env node\n// src/cli.ts\nexport const z = 2;\n";
    expect(asciiOnly(source, "cli.js")).toBe(source);
  });

  test("a non-ASCII character in a regular expression is code: the build fails with file, line and column", () => {
    const source = 'const s = "// not a comment";\nconst r = /COM[0-9\u00B9]/u; // \u2014\n';
    expect(() => asciiOnly(source, "dist/chunks/x.js")).toThrow(NonAsciiCodeError);
    expect(() => asciiOnly(source, "dist/chunks/x.js")).toThrow(/^dist\/chunks\/x\.js:2:19: U\+00B9 is outside a comment/);
  });

  test("a non-ASCII character in a string or a template fails too (esbuild would have escaped it: something changed)", () => {
    expect(() => asciiOnly('export const s = "\u2014";\n', "a.js")).toThrow(/a\.js:1:19: U\+2014/);
    expect(() => asciiOnly("export const t = `\u2026`;\n", "b.js")).toThrow(/b\.js:1:19: U\+2026/);
  });
});
