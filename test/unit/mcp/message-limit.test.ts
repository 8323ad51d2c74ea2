/**
 * A call's result is cut to fit one MCP message, whatever its output holds,
 * and left whole when it fits.
 */
import { describe, expect, test } from "vitest";
import type { CallOutcome } from "../../../src/pipeline/call-types.js";
import { fitOutcomeToMessage } from "../../../src/mcp/message-limit.js";
import { callResult, structuredResult } from "../../../src/mcp/result.js";

function ran(stdout: string, stderr = ""): CallOutcome {
  return {
    provider: "p",
    decision: { result: "allow", source: "rules", reason: "accepted" },
    execution: { exit_code: 0, signal: null, stdout, stderr, truncated: false, timed_out: false, canceled: false, duration_ms: 1 },
  };
}

/** The serialised size of a result carrying `outcome` as it is (callResult would cut it). */
const bytesOf = (outcome: CallOutcome): number =>
  Buffer.byteLength(JSON.stringify(structuredResult("Ran.", outcome as unknown as Record<string, unknown>, false)));

describe("fitOutcomeToMessage", () => {
  test("leaves an outcome that fits untouched, output and truncated flag alike", () => {
    const outcome = ran("a".repeat(1000), "warning\n");
    const fitted = fitOutcomeToMessage(outcome, bytesOf, 64 * 1024);
    expect(fitted.cut).toBe(false);
    expect(fitted.outcome).toBe(outcome);
  });

  test.each([
    ["plain text", "a"],
    ["control bytes, escaped six or seven times over", "\u0001"],
    ["astral characters", "\u{1F600}"],
    ["quotes and backslashes", '"\\'],
  ])("cuts %s until the serialised result is within the budget", (_name, unit) => {
    const budget = 256 * 1024;
    const outcome = ran(unit.repeat(200_000), unit.repeat(50_000));
    expect(bytesOf(outcome)).toBeGreaterThan(budget);
    const fitted = fitOutcomeToMessage(outcome, bytesOf, budget);
    expect(fitted.cut).toBe(true);
    expect(bytesOf(fitted.outcome)).toBeLessThanOrEqual(budget);
    expect(fitted.outcome.execution?.truncated).toBe(true);
    // What is kept is the head of each stream, whole characters only, and not needlessly little.
    const stdout = fitted.outcome.execution?.stdout ?? "";
    expect(outcome.execution?.stdout.startsWith(stdout)).toBe(true);
    const last = stdout.charCodeAt(stdout.length - 1);
    expect(last >= 0xd800 && last <= 0xdbff, "a high surrogate left without its pair").toBe(false);
    expect(bytesOf(fitted.outcome)).toBeGreaterThan(budget / 2);
  });
});

describe("callResult", () => {
  test("a result whose output would pass 8 MiB once escaped is cut below it and says why", () => {
    // 1 MiB of control bytes: far under a raised max_output_bytes, over 12 MiB as a result.
    const outcome = ran("\u0001".repeat(1024 * 1024));
    const result = callResult(outcome);
    expect(bytesOf(outcome)).toBeGreaterThan(10 * 1024 * 1024);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(8 * 1024 * 1024);
    const first = result.content[0];
    expect(first?.type === "text" ? first.text : "").toMatch(/^Ran \(rules\): exited with code 0; output was cut to fit one MCP message \(8 MiB\)\./u);
    expect((result.structuredContent as unknown as CallOutcome).execution?.truncated).toBe(true);
  });
});
