/**
 * A value split across the two streams is searched in windows around the
 * places where the output switched streams (stream-interleaving.ts), and each
 * span found is split back into the pieces of each stream it covers. That
 * split went through every piece of the window for each span: a child
 * switching streams at every character while it prints a value over and over
 * (160 K characters) took 32 s, the number of spans times the number of
 * pieces. Work is counted (Math.min calls: one per piece a span is split
 * over, and a few per search step), not timed.
 */
import { describe, expect, test } from "vitest";
import { completed, createRedactor } from "../../../src/runtime/redaction.js";
import { crossStreamSpans } from "../../../src/runtime/stream-interleaving.js";
import type { Span } from "../../../src/runtime/spelling-matcher.js";

const VALUE = "Xk9fP2qLmZ7vR4tW8yB3nC6dH1jG5sA0eU";

/** The output in arrival order `text`, one character at a time on stdout and stderr in turn. */
function alternating(text: string): { stdout: string; stderr: string; interleaving: number[] } {
  let stdout = "";
  let stderr = "";
  for (let at = 0; at < text.length; at += 1) {
    if (at % 2 === 0) stdout += text[at] as string;
    else stderr += text[at] as string;
  }
  return { stdout, stderr, interleaving: Array.from({ length: text.length }, () => 1) };
}

describe("spans across the two streams", () => {
  test("a child switching streams at every character costs work proportional to its output, and every piece of the value is masked", () => {
    const text = `${VALUE} `.repeat(600);
    const output = alternating(text);
    const spans: { stdout: Span[]; stderr: Span[] } = { stdout: [], stderr: [] };
    const redactor = createRedactor([{ name: "V", value: VALUE }]);
    const min = Math.min;
    let calls = 0;
    Math.min = (...values: number[]) => {
      calls += 1;
      return min(...values);
    };
    try {
      completed(crossStreamSpans(output, redactor, spans));
    } finally {
      Math.min = min;
    }
    // Splitting each span over every piece of the window: about spans × pieces (~45 million) calls.
    expect(calls / text.length).toBeLessThan(100);
    const covered = (stream: Span[], at: number): boolean => stream.some((span) => span.start <= at && at < span.end);
    for (const stream of ["stdout", "stderr"] as const) {
      const printed = output[stream];
      for (let at = 0; at < printed.length; at += 1) if (printed[at] !== " ") expect(covered(spans[stream], at)).toBe(true);
    }
  });
});
