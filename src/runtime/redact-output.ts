/**
 * Redaction of a finished child's output under its byte cap. The launcher
 * captures at most `maxOutputBytes` of raw output (stdout and stderr
 * together) and redacts the whole of each stream at the end, so a secret split
 * across chunks is found like any other. Two things need care:
 *
 * - a cut (the cap, a timeout, a cancellation) may end a stream in the middle
 *   of a secret: that tail is masked (Redactor `cut`);
 * - a marker can be longer than the value it replaces, so the redacted text
 *   may pass the cap: it is trimmed back, stderr first, never inside a
 *   character and never inside a marker (a half marker is dropped whole).
 */
import { redactionMarker, type Redactor } from "./redaction.js";

export interface RedactedOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** Text was removed to keep the redacted output within the cap. */
  readonly trimmed: boolean;
}

const MARKER_START = redactionMarker("").slice(0, -1);

/** Redacts both streams and keeps their UTF-8 size within `maxBytes` together. */
export function redactOutput(
  output: { readonly stdout: string; readonly stderr: string },
  redactor: Redactor,
  options: { readonly cut: boolean; readonly maxBytes: number },
): RedactedOutput {
  if (!redactor.active) return { ...output, trimmed: false };
  let stdout = redactor.redact(output.stdout, { cut: options.cut });
  let stderr = redactor.redact(output.stderr, { cut: options.cut });
  let excess = Buffer.byteLength(stdout) + Buffer.byteLength(stderr) - options.maxBytes;
  if (excess <= 0) return { stdout, stderr, trimmed: false };
  const errBytes = Buffer.byteLength(stderr);
  stderr = trimToBytes(stderr, Math.max(0, errBytes - excess));
  excess -= errBytes - Buffer.byteLength(stderr);
  if (excess > 0) stdout = trimToBytes(stdout, Math.max(0, Buffer.byteLength(stdout) - excess));
  return { stdout, stderr, trimmed: true };
}

/** The longest start of `text` within `maxBytes` UTF-8 bytes that ends on a character and outside any marker. */
export function trimToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let end = 0;
  let bytes = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  const kept = text.slice(0, end);
  const open = kept.lastIndexOf("[");
  const tail = open === -1 ? "" : kept.slice(open);
  // A marker whose "]" fell beyond the cut would end the output in "[redacted:AWS_SE": drop it whole.
  const halfMarker = tail !== "" && !tail.includes("]") && (MARKER_START.startsWith(tail) || tail.startsWith(MARKER_START));
  return halfMarker ? kept.slice(0, open) : kept;
}
