/**
 * Many values with a common start (PEM keys share `-----BEGIN PRIVATE KEY-----`
 * and a DER header, JWTs a header, and so do their base64 and hex forms): the
 * search walks a common start once, not once per value (spelling-tree.ts).
 * Counted, not timed: the DFA's work is the positions of the states it builds,
 * the Pike scan's is its trie look-ups (Map gets); with 200 keys either must
 * stay within a small factor of the work with one key, where it grew with the
 * number of keys (seconds for one printed key).
 */
import { afterEach, describe, expect, test, vi } from "vitest";
import { createRedactor, type SecretValue } from "../../../src/runtime/redaction.js";
import { SpellingAutomaton } from "../../../src/runtime/spelling-automaton.js";

/** A fixed pseudo-random PEM-wrapped key (a common header, then distinct base64 lines). */
function pemKey(seed: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let state = seed;
  let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ";
  while (body.length < 1600) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    body += alphabet[(state >>> 16) % 64];
  }
  return `-----BEGIN PRIVATE KEY-----\n${(body.match(/.{1,64}/gu) ?? []).join("\n")}\n-----END PRIVATE KEY-----\n`;
}

const KEYS: SecretValue[] = Array.from({ length: 200 }, (_, i) => ({ name: `KEY_${i}`, value: pemKey(i + 1) }));

afterEach(() => {
  vi.restoreAllMocks();
});

/** The DFA positions built and the Map look-ups made while `secrets`' redactor redacts `text`. */
function workOf(secrets: readonly SecretValue[], text: string): { positions: number; lookups: number } {
  expect(secrets.some((key) => text.includes(key.value))).toBe(true);
  const redactor = createRedactor(secrets);
  let positions = 0;
  const intern = (SpellingAutomaton.prototype as unknown as { intern: (positions: unknown[], accept: boolean) => number }).intern;
  vi.spyOn(SpellingAutomaton.prototype as unknown as { intern: typeof intern }, "intern").mockImplementation(function (this: unknown, list, accept) {
    positions += list.length;
    return intern.call(this, list, accept);
  });
  const get = vi.spyOn(Map.prototype, "get");
  const out = redactor.redact(text);
  const lookups = get.mock.calls.length;
  vi.restoreAllMocks();
  for (const key of secrets) if (text.includes(key.value)) expect(out).not.toContain(key.value.split("\n")[3]);
  return { positions, lookups };
}

describe("200 PEM keys with a common start", () => {
  test("one printed key (a short text: the Pike scan alone) costs about what it costs with one key", () => {
    const text = `key:\n${KEYS[7]?.value ?? ""}done\n`;
    const one = workOf([KEYS[7] as SecretValue], text);
    const all = workOf(KEYS, text);
    expect(all.lookups).toBeLessThan(4 * one.lookups);
  });

  test("five printed keys in a long log (the DFA) cost about what they cost with those keys alone", () => {
    const printed = KEYS.slice(0, 5);
    const text = `${"log line\n".repeat(600)}${printed.map((key) => `${key.value}log line\n`).join("")}`;
    const few = workOf(printed, text);
    const all = workOf(KEYS, text);
    expect(all.positions).toBeLessThan(4 * few.positions + 10_000);
    expect(all.lookups).toBeLessThan(4 * few.lookups);
  });
});
