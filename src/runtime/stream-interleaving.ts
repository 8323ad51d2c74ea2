/**
 * A value a child split across its two streams: part on stdout, the rest on
 * stderr (or the other way round), each redacted on its own, would leave
 * both parts in clear. The launcher records in which order the output
 * arrived (`interleaving`: the lengths of the runs of text each stream added
 * in turn, stdout first), and the places where the output went from one stream
 * to the other are searched again in that order: a window of the redactor's
 * reach on each side of each switch (overlapping windows merge, so the work
 * stays linear), with the spans found mapped back onto each stream. Without a
 * record, stdout is taken to come before stderr.
 *
 * The granularity is that of the reads: two writes that reached the launcher
 * in one read of each pipe, interleaved differently, are seen in the order of
 * the reads.
 *
 * Pure: no I/O.
 */
import type { Redactor, Span } from "./redaction.js";

type StreamName = "stdout" | "stderr";

interface Run {
  readonly stream: StreamName;
  /** Where the run starts in its stream. */
  readonly from: number;
  readonly length: number;
  /** Where the run starts in the output in arrival order. */
  readonly at: number;
}

/** Output as the launcher captured it (LaunchResult's fields). */
export interface StreamsInOrder {
  readonly stdout: string;
  readonly stderr: string;
  readonly interleaving?: readonly number[] | undefined;
}

/** The runs in arrival order; a record that does not add up to the streams' lengths is clamped and completed. */
export function arrivalRuns(output: StreamsInOrder): Run[] {
  const runs: Run[] = [];
  const used = { stdout: 0, stderr: 0 };
  let at = 0;
  const add = (stream: StreamName, wanted: number): void => {
    const length = Math.max(0, Math.min(wanted, output[stream].length - used[stream]));
    if (length === 0) return;
    const last = runs.at(-1);
    if (last?.stream === stream) runs[runs.length - 1] = { ...last, length: last.length + length };
    else runs.push({ stream, from: used[stream], length, at });
    used[stream] += length;
    at += length;
  };
  (output.interleaving ?? []).forEach((length, index) => {
    add(index % 2 === 0 ? "stdout" : "stderr", length);
  });
  add("stdout", Infinity);
  add("stderr", Infinity);
  return runs;
}

/**
 * Pushes to `spans` what the redactor finds across the switches between the
 * two streams. With `cut` (the output was cut short), the window that reaches
 * the end of the output is searched as cut too: a value begun on one stream and
 * cut off on the other is a leaked prefix on both.
 */
export function* crossStreamSpans(output: StreamsInOrder, redactor: Redactor, spans: Record<StreamName, Span[]>, cut = false): Generator<void, void, void> {
  if (output.stdout === "" || output.stderr === "") return;
  const runs = arrivalRuns(output);
  const end = output.stdout.length + output.stderr.length;
  let first = 0;
  for (const [from, to] of windowsAroundSwitches(runs, redactor.reach, end)) {
    while (first < runs.length && (runs[first] as Run).at + (runs[first] as Run).length <= from) first += 1;
    const pieces: Run[] = [];
    for (let index = first; index < runs.length && (runs[index] as Run).at < to; index += 1) pieces.push(runs[index] as Run);
    const text = pieces.map((run) => output[run.stream].slice(run.from + Math.max(0, from - run.at), run.from + Math.min(run.length, to - run.at))).join("");
    for (const span of yield* redactor.spans(text, cut && to === end)) mapBack(pieces, from + span.start, from + span.end, span.marker, spans);
  }
}

/** [from, to) in arrival order around each switch, `reach` on each side, overlapping windows merged. */
function windowsAroundSwitches(runs: readonly Run[], reach: number, end: number): [number, number][] {
  const windows: [number, number][] = [];
  for (const run of runs.slice(1)) {
    const from = Math.max(0, run.at - reach);
    const to = Math.min(end, run.at + reach);
    const last = windows.at(-1);
    if (last !== undefined && from <= last[1]) last[1] = to;
    else windows.push([from, to]);
  }
  return windows;
}

/**
 * Splits [start, end) in arrival order into the parts of each stream it covers.
 * The first piece it covers is found by bisection (pieces are in arrival
 * order): a window of a child that switched streams at every few characters
 * holds as many pieces as characters, and going through all of them for each
 * span made the work the number of spans times that (160 K characters
 * alternating stdout and stderr, a value printed over and over: 32 s).
 */
function mapBack(pieces: readonly Run[], start: number, end: number, marker: string, spans: Record<StreamName, Span[]>): void {
  let low = 0;
  let high = pieces.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    const run = pieces[middle] as Run;
    if (run.at + run.length <= start) low = middle + 1;
    else high = middle;
  }
  for (let index = low; index < pieces.length && (pieces[index] as Run).at < end; index += 1) {
    const run = pieces[index] as Run;
    const from = Math.max(start, run.at);
    const to = Math.min(end, run.at + run.length);
    if (from < to) spans[run.stream].push({ start: run.from + from - run.at, end: run.from + to - run.at, marker });
  }
}
