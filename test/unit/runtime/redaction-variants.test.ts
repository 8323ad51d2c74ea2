/**
 * Forms of a value that are no escape of its characters: the value upper- or
 * lower-cased by the program (hex and base32 tokens, names normalised for
 * display), JSON inside a JSON string (escaped twice), and a JSON document
 * holding the value, base64-encoded (a Kubernetes secret's data, a JWT payload).
 */
import { describe, expect, test } from "vitest";
import { createRedactor } from "../../../src/runtime/redaction.js";

const MARK = "[redacted:S]";

/** `text` in a line of output, redacted under `value` alone. */
function redacted(value: string, text: string): string {
  return createRedactor([{ name: "S", value }]).redact(`before ${text} after`);
}

describe("a value in another case", () => {
  test.each([
    ["a hex token, upper-cased", "9f86d081884c7d659a2feaa0c55ad015", (v: string) => v.toUpperCase()],
    ["a base32 secret, lower-cased", "JBSWY3DPEHPK3PXPJBSWY3DP", (v: string) => v.toLowerCase()],
    ["a mixed value with a non-ASCII letter, upper-cased", 'Ab3d/ef"gh\\ij+k=é9XyZ', (v: string) => v.toUpperCase()],
    [
      "a mixed value, case swapped",
      "sk_Live_9f8E7d6C5b",
      (v: string) => v.replace(/[a-z]/giu, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())),
    ],
  ])("%s", (_, value, variant) => {
    expect(redacted(value, variant(value))).toBe(`before ${MARK} after`);
  });
});

describe("a value in a structure", () => {
  const value = 'Ab3d/ef"gh\\ij+k=é9XyZ\nline2';

  test("JSON inside a JSON string: every escape escaped twice", () => {
    const twice = JSON.stringify(JSON.stringify({ password: value }));
    expect(redacted(value, twice)).not.toMatch(/Ab3d|XyZ|line2/u);
  });

  test("JSON with non-ASCII as \\u escapes, inside a JSON string", () => {
    const inner = JSON.stringify(value).replace(/[^\x20-\x7e]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    expect(redacted(value, JSON.stringify(inner))).toContain(MARK);
  });

  test("a JSON document holding the value, base64-encoded at each alignment", () => {
    for (const key of ["k", "ke", "key"]) {
      const blob = Buffer.from(JSON.stringify({ [key]: value })).toString("base64");
      const out = redacted(value, blob);
      expect(out, key).toContain(MARK);
      // What is left of the blob decodes to no more than a few bytes of the value.
      expect(out.replace(MARK, "").length, key).toBeLessThan(`before ${blob} after`.length - 30);
    }
  });
});
