/**
 * The normalised view of a child's output that redaction also searches: the
 * text without the characters a terminal or an encoder puts between a value's
 * characters by accident, with a map from each kept character back to where
 * it stood. Removed:
 *
 * - NUL: UTF-16 output (a Windows-born tool, `iconv -t UTF-16`) read as UTF-8
 *   puts a NUL beside every ASCII character;
 * - the other C0 controls, line breaks and tabs included (a value wrapped at a
 *   terminal's or base64's column, or split across stdout and stderr with a
 *   line break), DEL and C1 controls;
 * - ANSI escape sequences whole: CSI (`ESC [ … final`, colours between
 *   characters), OSC (`ESC ] … BEL` or `ESC \`), and two-character escapes;
 * - zero-width and bidirectional marks (U+200B–U+200F, U+202A–U+202E,
 *   U+2060–U+2064, U+2066–U+2069, U+FEFF), the no-break space and the soft
 *   hyphen (U+00A0, U+00AD: a word processor's or a table's line filling);
 * - the spaces that indent the line after a line break (a value wrapped into
 *   an indented table cell or YAML block).
 *
 * A value holding such a character itself is still found in the text as it is
 * (redaction searches both). Built in slices (a generator), in linear time.
 *
 * Pure: no I/O.
 */
import { SLICE_UNITS } from "./spelling-matcher.js";

export interface NormalisedView {
  readonly text: string;
  /** The index in the original text of the view's character at `index`. */
  originOf(index: number): number;
}

const ESC = 0x1b;
const C1_CSI = 0x9b;
/** An OSC string longer than this is not one (its ESC alone is removed). */
const MAX_OSC = 4096;

// eslint-disable-next-line no-control-regex -- control characters are what the view removes
const REMOVABLE = /[\u0000-\u001f\u007f-\u00a0\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

function removable(code: number): boolean {
  if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0xad) return true;
  if (code < 0x200b) return false;
  return code <= 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2060 && code <= 0x2064) || (code >= 0x2066 && code <= 0x2069) || code === 0xfeff;
}

/** The index after the escape sequence whose introducer (ESC or C1 CSI) is at `at`. */
function escapeEnd(text: string, at: number, osc: OscSearch): number {
  let next = at + 1;
  let code = text.charCodeAt(at);
  if (code === ESC) {
    code = text.charCodeAt(next);
    if (code === 0x5d) return oscEnd(text, next + 1, osc) ?? next;
    if (code !== 0x5b) {
      // ESC, intermediates (0x20–0x2f), a final (0x30–0x7e): `ESC ( B`, `ESC =`.
      while (code >= 0x20 && code <= 0x2f) code = text.charCodeAt(++next);
      return code >= 0x30 && code <= 0x7e ? next + 1 : at + 1;
    }
    next += 1;
  }
  // CSI: parameters (0x30–0x3f), intermediates (0x20–0x2f), a final (0x40–0x7e).
  const start = next;
  code = text.charCodeAt(next);
  while (code >= 0x30 && code <= 0x3f) code = text.charCodeAt(++next);
  while (code >= 0x20 && code <= 0x2f) code = text.charCodeAt(++next);
  return code >= 0x40 && code <= 0x7e ? next + 1 : Math.max(start, at + 1);
}

/**
 * The last search for an OSC terminator in one text: from `from`, no
 * terminator starts before `to`, and one starts at `to` when `found`. Output
 * full of OSC introducers that never end (`ESC ]` over and over) started a
 * search of MAX_OSC characters at every one of them, ~2,000 reads per
 * character (256 KiB: 1.6 s); a later search that begins within this one goes
 * on from where it stopped instead. One per text (the view's building and its
 * `originOf`), never shared between texts.
 */
interface OscSearch {
  from: number;
  to: number;
  found: boolean;
}

function newOscSearch(): OscSearch {
  return { from: 0, to: -1, found: false };
}

/** Whether an OSC terminator (BEL or `ESC \`) starts at `at`. */
function terminatorAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code === 0x07 || (code === ESC && text.charCodeAt(at + 1) === 0x5c);
}

/** The index after an OSC string's terminator (BEL or `ESC \`), if it has one within MAX_OSC. */
function oscEnd(text: string, from: number, search: OscSearch): number | undefined {
  const last = Math.min(text.length, from + MAX_OSC);
  let at = from;
  const known = search.from <= from && from <= search.to;
  if (known && search.found) at = search.to;
  else {
    if (known) at = search.to;
    else search.from = from;
    while (at < last && !terminatorAt(text, at)) at += 1;
    search.to = at;
    search.found = at < last;
  }
  if (at >= last) return undefined;
  return text.charCodeAt(at) === 0x07 ? at + 1 : at + 2;
}

/** The index of the first character at or after `at` that the view keeps; stops at `limit` (an escape sequence may end past it). */
function nextKept(text: string, at: number, limit: number, osc: OscSearch): number {
  while (at < limit) {
    const code = text.charCodeAt(at);
    if (code === ESC || code === C1_CSI) at = escapeEnd(text, at, osc);
    else if (code === LF || code === CR) {
      // The line break and the next line's indentation (within this run: a run boundary keeps the rest).
      at += 1;
      while (at < limit && text.charCodeAt(at) === SPACE) at += 1;
    } else if (removable(code)) at += 1;
    else return at;
  }
  return at;
}

/** Characters of text per run of the copy loop (a called function stays optimised; see spelling-search.ts). */
const RUN_UNITS = 4096;
/**
 * Text units between two places `originOf` may start its walk from (a run's
 * start, or a kept character at least this far past the last such place),
 * found for a run the first time a span in it is mapped back (never in the
 * copy loop, whose speed every output pays). From a run's start alone, every
 * span mapped back walked up to a whole run: overlapping spans (a periodic
 * value printed over and over, a value and its pieces) come back out of
 * order, so the walk could not go on from the last answer, and 1 MB of
 * `abab…` with one NUL took 12 s for the value `abababab` (0.9 s without the
 * NUL).
 */
const MARK_UNITS = 64;

/**
 * The view of `text`, or undefined when nothing in it is removed. Yields after
 * every SLICE_UNITS characters. No array as long as the text is allocated
 * (fresh memory costs a page fault per 4 KiB): the kept characters go through
 * one small buffer, and the map back is the start of each run, from which
 * `originOf` walks the few characters to the one asked for.
 */
export function* normalisedView(text: string): Generator<void, NormalisedView | undefined, void> {
  if (!REMOVABLE.test(text)) return undefined;
  const scratch = new Uint16Array(RUN_UNITS);
  const parts: string[] = [];
  const runs: Run[] = [];
  const osc = newOscSearch();
  let viewLength = 0;
  let at = 0;
  while (at < text.length) {
    const sliceTo = Math.min(text.length, at + SLICE_UNITS);
    while (at < sliceTo) {
      const to = Math.min(sliceTo, at + RUN_UNITS);
      runs.push({ view: viewLength, text: at, limit: to });
      let kept = 0;
      for (at = nextKept(text, at, to, osc); at < to; at = nextKept(text, at + 1, to, osc)) scratch[kept++] = text.charCodeAt(at);
      parts.push(Buffer.from(scratch.buffer, 0, kept * 2).toString("utf16le"));
      viewLength += kept;
    }
    if (at < text.length) yield;
  }
  // The last answer: spans come in order of place, many to a run when a value's pieces are masked
  // (partial-values.ts), and walking on from the last one keeps their mapping linear.
  const last = { view: -1, text: -1 };
  const marks = new Map<number, Mark[]>();
  return { text: parts.join(""), originOf: (index) => originOf(text, runs, index, { last, marks, osc }) };
}

/** Where a run of the copy started, in the view and in the text, and the limit the copy loop read it with. */
interface Run {
  readonly view: number;
  readonly text: number;
  readonly limit: number;
}

/** A kept character of a run: its place in the view and in the text. */
interface Mark {
  readonly view: number;
  readonly text: number;
}

/** What `originOf` keeps between calls: the last answer, the marks of the runs asked about so far, the OSC search. */
interface MapState {
  readonly last: { view: number; text: number };
  readonly marks: Map<number, Mark[]>;
  readonly osc: OscSearch;
}

/** The latest entry of `entries` (in order of `view`) at or before `index`. */
function latestAtOrBefore(entries: readonly { readonly view: number }[], index: number): number {
  let low = 0;
  let high = entries.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((entries[middle] as { readonly view: number }).view <= index) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The kept characters of `run` from which a walk may start: the first, then one at least MARK_UNITS text units past the last. */
function marksOf(text: string, run: Run, osc: OscSearch): Mark[] {
  const marks: Mark[] = [];
  let view = run.view;
  let marked = -Infinity;
  for (let at = nextKept(text, run.text, run.limit, osc); at < run.limit; at = nextKept(text, at + 1, run.limit, osc)) {
    if (at - marked >= MARK_UNITS) {
      marks.push({ view, text: at });
      marked = at;
    }
    view += 1;
  }
  return marks;
}

function originOf(text: string, runs: readonly Run[], index: number, state: MapState): number {
  const { last, marks, osc } = state;
  const runIndex = latestAtOrBefore(runs, index);
  const run = runs[runIndex] as Run;
  let runMarks = marks.get(runIndex);
  if (runMarks === undefined) marks.set(runIndex, (runMarks = marksOf(text, run, osc)));
  let from = runMarks[latestAtOrBefore(runMarks, index)] ?? { view: run.view, text: nextKept(text, run.text, text.length, osc) };
  // Spans come mostly in order of place: the last answer, when it lies between, is a shorter walk still.
  if (last.view >= from.view && last.view <= index) from = last;
  let at = from.text;
  for (let count = from.view; count < index; count += 1) at = nextKept(text, at + 1, text.length, osc);
  last.view = index;
  last.text = at;
  return at;
}
