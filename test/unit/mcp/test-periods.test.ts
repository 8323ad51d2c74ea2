/**
 * The periods a built server reads from its environment (src/mcp/test-periods.ts). A value past what a timer
 * keeps (2^31 - 1 ms) made Node run the timer after 1 ms: a stall period meant as "practically never" gave up
 * on the client the first time its stdout was full.
 */
import { expect, test } from "vitest";
import { millisecondsFrom } from "../../../src/mcp/test-periods.js";
import { MAX_TIMER_MS } from "../../../src/runtime/timers.js";

test("reads a non-negative integer, falls back on anything else (an empty value is unset, not 0: never), and caps a period at what a timer keeps", () => {
  const read = (text: string | undefined): number => millisecondsFrom({ TORII_STDOUT_STALL_MS: text }, "TORII_STDOUT_STALL_MS", 7);
  expect([read(undefined), read(""), read(" "), read("-1"), read("1.5"), read("x"), read("0"), read("250")]).toEqual([7, 7, 7, 7, 7, 7, 0, 250]);
  expect(MAX_TIMER_MS).toBe(2_147_483_647);
  expect([read("2147483647"), read("2147483648"), read("3000000000"), read("9007199254740991")]).toEqual([
    MAX_TIMER_MS,
    MAX_TIMER_MS,
    MAX_TIMER_MS,
    MAX_TIMER_MS,
  ]);
});
