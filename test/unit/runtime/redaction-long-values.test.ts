/**
 * Values longer than the cut tail (32 KiB: a CA bundle, a kubeconfig or a
 * certificate chain pasted into `.env`), printed by a real child in small
 * chunks and cut by the output cap inside the value: nothing of the value is
 * left in clear, wherever the cut falls.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { launch } from "../../../src/runtime/launcher.js";
import { createRedactor, CUT_TAIL_MARKER } from "../../../src/runtime/redaction.js";
import { nodeScript } from "./process-helpers.js";

const KIB = 1024;

/** A long value with no repeated 24-character piece, so any piece of it left in the output is a leak. */
function longValue(length: number): string {
  const body = randomBytes(Math.ceil((length * 3) / 4))
    .toString("base64")
    .slice(0, length);
  return body.match(/.{1,64}/gsu)?.join("\n") ?? body;
}

/** The 24-character pieces of `value` (line breaks removed) found in `text`. */
function leakedPieces(value: string, text: string): number {
  const flat = value.replaceAll("\n", "");
  const seen = text.replaceAll("\n", "");
  let leaked = 0;
  for (let at = 0; at + 24 <= flat.length; at += 24) if (seen.includes(flat.slice(at, at + 24))) leaked += 1;
  return leaked;
}

/** A child that prints a log line, then the value, in 1000-byte writes (each its own pipe chunk or several). */
const chunkedPrinter = `
  const fs = require("node:fs");
  const text = "starting\\n" + process.env.BUNDLE + "\\ndone\\n";
  for (let at = 0; at < text.length; at += 1000) fs.writeSync(1, text.slice(at, at + 1000));`;

describe("a value longer than the cut tail", () => {
  for (const [valueLength, cap] of [
    [48 * KIB, 40 * KIB],
    [100 * KIB, 90 * KIB],
    [100 * KIB, 33 * KIB],
  ] as const) {
    it(`a ${valueLength / KIB} KiB value cut at ${cap / KIB} KiB of chunked output leaves none of it`, async () => {
      const value = longValue(valueLength);
      const redactor = createRedactor([{ name: "BUNDLE", value }]);
      const result = await launch(nodeScript(chunkedPrinter, { env: { BUNDLE: value }, maxOutputBytes: cap, redactor }));
      expect(result.truncated).toBe(true);
      expect(leakedPieces(value, result.stdout)).toBe(0);
      expect(result.stdout.startsWith("starting\n")).toBe(true);
      expect(result.stdout.endsWith(CUT_TAIL_MARKER)).toBe(true);

      // Uncut, the same chunked print is masked whole.
      const whole = await launch(nodeScript(chunkedPrinter, { env: { BUNDLE: value }, maxOutputBytes: 1 << 20, redactor }));
      expect(whole.stdout).toBe("starting\n[redacted:BUNDLE]\ndone\n");

      // A long cut text that is not the value keeps its head: only the fixed tail goes.
      const other = longValue(40 * KIB);
      const out = redactor.redact(`head\n${other}`, { cut: true });
      expect(out.startsWith(`head\n${other.slice(0, 1000)}`)).toBe(true);
    });
  }
});

describe("no oracle for the character after a long known start", () => {
  it("a cut text of the value's known start and one guessed character redacts alike whether the guess is right or not", () => {
    // A long value whose start is public and not random-looking (a bundle of named settings), a secret at its end:
    // an agent that knows more than the 32 KiB tail of its start prints it and one guess, cut right after.
    // Each line its own (a repeating value keeps one spelling under way per repeat, which costs quadratic time).
    const letters = (n: number): string => [n % 26, Math.floor(n / 26) % 26, Math.floor(n / 676)].map((d) => String.fromCharCode(97 + d)).join("");
    const words = Array.from({ length: 2000 }, (_, i) => `setting-${letters(i)}: enabled\n`).join("");
    const value = `${words}secret: ${randomBytes(24).toString("base64")}`;
    const redactor = createRedactor([{ name: "BUNDLE", value }]);
    const known = value.slice(0, words.length + 10);
    expect(known.length).toBeGreaterThan(32 * KIB);
    const right = value[known.length] ?? "";
    const outputs = new Set<string>();
    for (const guess of [right, right === "A" ? "B" : "A", "!"]) outputs.add(redactor.redact(`${known}${guess}`, { cut: true }));
    expect(outputs.size).toBe(1);
    // And what it says is that the head was masked: the known start is a spelling under way before the tail.
    expect([...outputs][0]).toBe(CUT_TAIL_MARKER);
  });
});
