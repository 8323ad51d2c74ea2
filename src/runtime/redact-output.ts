/**
 * Redaction of a finished child's output under its byte cap. The launcher
 * captures at most `maxOutputBytes` of raw output (stdout and stderr
 * together) and redacts the whole of each stream at the end, so a secret split
 * across chunks is found like any other, and the places where the output went
 * from one stream to the other, so is one split across the two. Two things
 * need care:
 *
 * - a cut (the cap, a timeout, a cancellation) may end a stream in the middle
 *   of a secret: that tail is masked (Redactor `cut`);
 * - a marker can be longer than the value it replaces, so the redacted text
 *   may pass the cap: it is trimmed back, stderr first, never inside a
 *   character and never inside a marker (a half marker is dropped whole).
 */
import { redactionMarker, replaceSpans, type Redactor, type Span } from "./redaction.js";
import { crossStreamSpans, type StreamsInOrder } from "./stream-interleaving.js";

export interface RedactedOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** Text was removed to keep the redacted output within the cap. */
  readonly trimmed: boolean;
}

const MARKER_START = redactionMarker("").slice(0, -1);

/**
 * Redacts both streams and keeps their UTF-8 size within `maxBytes` together.
 * The search runs in slices with a turn of the event loop between them
 * (`setImmediate`), so a large output never holds the server for long and
 * other calls' answers go out meanwhile.
 */
export async function redactOutput(
  output: StreamsInOrder,
  redactor: Redactor,
  options: { readonly cut: boolean; readonly maxBytes: number },
): Promise<RedactedOutput> {
  if (!redactor.active) return { stdout: output.stdout, stderr: output.stderr, trimmed: false };
  const spans = await inSlices(outputSpans(output, redactor, options.cut));
  return withinCap(replaceSpans(output.stdout, spans.stdout), replaceSpans(output.stderr, spans.stderr), options.maxBytes);
}

/** Each stream on its own, then the places where the output went from one stream to the other (stream-interleaving.ts). */
function* outputSpans(output: StreamsInOrder, redactor: Redactor, cut: boolean): Generator<void, { stdout: Span[]; stderr: Span[] }, void> {
  const stdout = yield* redactor.spans(output.stdout, cut);
  const stderr = yield* redactor.spans(output.stderr, cut);
  yield* crossStreamSpans(output, redactor, { stdout, stderr }, cut);
  return { stdout, stderr };
}

/** Runs a sliced search, letting the event loop run between slices. */
async function inSlices<T>(work: Generator<void, T, void>): Promise<T> {
  for (;;) {
    const step = work.next();
    if (step.done === true) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function withinCap(redactedOut: string, redactedErr: string, maxBytes: number): RedactedOutput {
  let stdout = redactedOut;
  let stderr = redactedErr;
  let excess = Buffer.byteLength(stdout) + Buffer.byteLength(stderr) - maxBytes;
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
  const bytes = Buffer.from(text, "utf8");
  let end = Math.max(0, maxBytes);
  // Back to the start of the character the cut falls in (UTF-8 continuation bytes are 10xxxxxx).
  while (end > 0 && ((bytes[end] as number) & 0xc0) === 0x80) end -= 1;
  const kept = bytes.subarray(0, end).toString("utf8");
  const open = kept.lastIndexOf("[");
  const tail = open === -1 ? "" : kept.slice(open);
  // A marker whose "]" fell beyond the cut would end the output in "[redacted:AWS_SE": drop it whole.
  const halfMarker = tail !== "" && !tail.includes("]") && (MARKER_START.startsWith(tail) || tail.startsWith(MARKER_START));
  return halfMarker ? kept.slice(0, open) : kept;
}
