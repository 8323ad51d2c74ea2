/**
 * A server's calls inject the same `.env` values call after call, so the
 * compiled patterns of recent secret sets are kept (runtime/redaction.ts):
 * a redactor built again for the same values must redact exactly as the
 * first, whoever used the first meanwhile, and one built for other values
 * (or the same values under other names, or in another order) must not
 * inherit anything from it.
 */
import { describe, expect, test } from "vitest";
import { createRedactor, replaceSpans, type SecretValue, type Span } from "../../../src/runtime/redaction.js";

const SECRETS: readonly SecretValue[] = [
  { name: "API_TOKEN", value: "sk_live_9f8e7d6c5b4a3f2e1d0c" },
  { name: "DB_PASSWORD", value: "p&ss<w>rd'é/x!*q" },
  { name: "AWS_SECRET_ACCESS_KEY", value: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
];

/** A text above the DFA's threshold with every value in a few of its spellings, between log lines. */
function bigText(values: readonly string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < 400; i += 1) {
    const value = values[i % values.length] ?? "";
    lines.push(`2026-12-02T10:00:${String(i % 60).padStart(2, "0")}Z INFO id=${i} token=${i % 7 === 0 ? JSON.stringify(value) : encodeURIComponent(value)}`);
  }
  return lines.join("\n");
}

describe("redactors built again for the same values", () => {
  test("redact exactly as the first, after the first searched a large text", () => {
    const text = bigText(SECRETS.map((secret) => secret.value));
    const first = createRedactor(SECRETS).redact(text);
    const again = createRedactor(SECRETS).redact(text);
    expect(again).toBe(first);
    for (const { value } of SECRETS) expect(again).not.toContain(value);
    expect(again).toContain("[redacted:API_TOKEN]");
  });

  test("two of them searching large texts in interleaved slices each find what it finds alone", () => {
    const one = bigText(SECRETS.map((secret) => secret.value));
    const other = bigText([...SECRETS].reverse().map((secret) => secret.value)).repeat(3);
    const alone = [createRedactor(SECRETS).redact(one), createRedactor(SECRETS).redact(other)];
    const searches = [createRedactor(SECRETS).spans(one, false), createRedactor(SECRETS).spans(other, false)];
    const results: (Span[] | undefined)[] = [undefined, undefined];
    while (results.includes(undefined)) {
      searches.forEach((search, index) => {
        if (results[index] !== undefined) return;
        const step = search.next();
        if (step.done === true) results[index] = step.value;
      });
    }
    expect([replaceSpans(one, results[0] ?? []), replaceSpans(other, results[1] ?? [])]).toEqual(alone);
  });

  test("one redactor: a synchronous redact of a large text while its sliced search of another is paused, each finds what it finds alone", () => {
    const one = bigText(SECRETS.map((secret) => secret.value)).repeat(4);
    const other = bigText([...SECRETS].reverse().map((secret) => secret.value)).repeat(4);
    const redactor = createRedactor(SECRETS);
    const paused = redactor.spans(one, false);
    expect(paused.next().done).toBe(false);
    expect(redactor.redact(other)).toBe(createRedactor(SECRETS).redact(other));
    let step = paused.next();
    while (step.done !== true) step = paused.next();
    expect(replaceSpans(one, step.value)).toBe(createRedactor(SECRETS).redact(one));
  });

  test("values under other names, in another order, or others mark with their own names", () => {
    const text = `a=${SECRETS[0]?.value ?? ""} b=${SECRETS[1]?.value ?? ""}`;
    expect(createRedactor(SECRETS).redact(text)).toBe("a=[redacted:API_TOKEN] b=[redacted:DB_PASSWORD]");
    const renamed = SECRETS.map((secret) => ({ ...secret, name: `OTHER_${secret.name}` }));
    expect(createRedactor(renamed).redact(text)).toBe("a=[redacted:OTHER_API_TOKEN] b=[redacted:OTHER_DB_PASSWORD]");
    // The same value injected twice is marked with the first name given.
    const twice = [{ name: "FIRST", value: SECRETS[0]?.value ?? "" }, ...SECRETS];
    expect(createRedactor(twice).redact(text)).toBe("a=[redacted:FIRST] b=[redacted:DB_PASSWORD]");
    expect(createRedactor([{ name: "NEW", value: "another-secret-value" }]).redact(text)).toBe(text);
  });
});
