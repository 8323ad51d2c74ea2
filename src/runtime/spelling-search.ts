/**
 * The search for spelled values in a text: the lazy DFA (spelling-automaton.ts)
 * reads every character with one table look-up and says where a spelling ended;
 * only around those places does the Pike scan (spelling-matcher.ts
 * `findSpellings`), which knows where each spelling started, read the text
 * again. A region handed to it starts where the DFA was last idle (no spelling
 * under way), or one longest spelling before the end it found, whichever is
 * later, and ends where the DFA is idle again or four longest spellings after
 * its start, whichever comes first; so each character is read by the Pike scan
 * at most about twice, and the whole search stays linear.
 *
 * A generator: it yields after every slice of work (SLICE_UNITS characters),
 * so a caller can let its event loop run between slices (redact-output.ts).
 *
 * Pure: no I/O.
 */
import type { SpellingAutomaton } from "./spelling-automaton.js";
import { findSpellings, findSpellingsUntilIdle, SLICE_UNITS, type Span, type SpellingSet } from "./spelling-matcher.js";

/**
 * Characters per call of the hot loop: short enough that the loop is compiled
 * as a called function rather than on-stack (whose code V8 caches without
 * feedback for the code after the loop, deoptimising at every exit).
 */
const RUN_UNITS = 4096;

/** Where the DFA stands in the text. */
interface Cursor {
  at: number;
  state: number;
  /** Every spelling under way started at or after this. */
  idleAt: number;
  /** A spelling ended since idleAt: the Pike scan reads [regionFrom, the next idle place); -1 when none did. */
  regionFrom: number;
  /** Where the current stretch of DFA reading began, and how many transitions the DFA had built then (thrashing). */
  stretchFrom: number;
  builtAtStretch: number;
  /** The DFA thrashed: the Pike scan takes over from here (-1 when not). */
  deepFrom: number;
}

/**
 * A stretch of text in which the DFA built a transition for at least one in
 * THRASH_SHARE of the characters read, and at least THRASH_BUILDS of them, is
 * handed to the Pike scan: a long value being spelled (a PEM key, a
 * certificate bundle) is a new set of positions at every character, so a new
 * DFA state per character, which costs far more than the Pike scan's step.
 * One in four, not one in two: text of many values' pieces (base64 near a
 * long value's 12-character blocks, partial-values.ts) builds a state at about
 * every third character, and with 200 PEM keys such text took 3.4 s per MB
 * (1.7 s with this share; ordinary output builds almost none once warm).
 * Checked every THRASH_CHECK characters.
 */
const THRASH_BUILDS = 32;
const THRASH_SHARE = 4;
const THRASH_CHECK = 64;

/** Pushes to `spans` every span of `text` that spells one of the set's values. */
export function* searchSpellings(text: string, set: SpellingSet, automaton: SpellingAutomaton, spans: Span[]): Generator<void, void, void> {
  const reach = set.longest;
  const cursor: Cursor = { at: 0, state: 0, idleAt: 0, regionFrom: -1, stretchFrom: 0, builtAtStretch: automaton.built, deepFrom: -1 };
  while (cursor.at < text.length) {
    const sliceTo = Math.min(text.length, cursor.at + SLICE_UNITS);
    while (cursor.at < sliceTo) {
      const regionFrom = runUntilRegionEnds(text, automaton, reach, cursor, Math.min(sliceTo, cursor.at + RUN_UNITS));
      if (regionFrom >= 0) yield* findSpellings(text, set, { from: regionFrom, to: cursor.at }, spans);
      if (cursor.deepFrom >= 0) yield* readDeep(text, set, automaton, reach, cursor, spans);
    }
    if (cursor.at < text.length) yield;
  }
  if (cursor.regionFrom >= 0) yield* findSpellings(text, set, { from: cursor.regionFrom, to: text.length }, spans);
}

/**
 * The Pike scan reads on from `cursor.deepFrom` (every spelling under way
 * started there or later) until nothing is under way, at least to where the
 * DFA stopped and at most four longest spellings on; the DFA then starts
 * again idle: where the scan found nothing under way, or one longest spelling
 * before where it stopped (a spelling ending later started no earlier), so
 * each character is read about twice at most.
 */
function* readDeep(text: string, set: SpellingSet, automaton: SpellingAutomaton, reach: number, cursor: Cursor, spans: Span[]): Generator<void, void, void> {
  const from = cursor.deepFrom;
  const to = Math.min(text.length, Math.max(cursor.at, from + 4 * reach));
  const stop = yield* findSpellingsUntilIdle(text, set, { from, idleFrom: cursor.at, to }, spans);
  const restart = stop.idle || stop.at >= text.length ? stop.at : Math.max(from + 1, stop.at - reach);
  Object.assign(cursor, { at: restart, state: 0, idleAt: restart, regionFrom: -1, stretchFrom: restart, builtAtStretch: automaton.built, deepFrom: -1 });
}

/**
 * Runs the DFA from `cursor.at` up to `to`, or until a region where a spelling
 * ended is over (the DFA idle again): then returns the region's start, with
 * `cursor.at` at its end; -1 when `to` was reached first. (The hot loop: a
 * plain function, so that it stays optimised.)
 */
function runUntilRegionEnds(text: string, automaton: SpellingAutomaton, reach: number, cursor: Cursor, to: number): number {
  let { state } = cursor;
  for (let at = cursor.at; at < to; at += 1) {
    state = automaton.next(state, text.charCodeAt(at));
    if (state === 0) {
      cursor.idleAt = at + 1;
      cursor.stretchFrom = at + 1;
      cursor.builtAtStretch = automaton.built;
      const regionFrom = cursor.regionFrom;
      if (regionFrom < 0) continue;
      cursor.regionFrom = -1;
      cursor.state = 0;
      cursor.at = at + 1;
      return regionFrom;
    }
    if ((at & (THRASH_CHECK - 1)) === 0) {
      const built = automaton.built - cursor.builtAtStretch;
      if (built >= THRASH_BUILDS && THRASH_SHARE * built >= at + 1 - cursor.stretchFrom) {
        // Every spelling under way started at or after both: the last idle place, and one longest spelling back.
        cursor.deepFrom = cursor.regionFrom >= 0 ? cursor.regionFrom : Math.max(cursor.idleAt, at + 1 - reach);
        cursor.regionFrom = -1;
        cursor.state = state;
        cursor.at = at + 1;
        return -1;
      }
    }
    if (cursor.regionFrom < 0) {
      if (automaton.accepts(state)) cursor.regionFrom = Math.max(cursor.idleAt, at + 1 - reach);
    } else if (at + 1 - cursor.regionFrom >= 4 * reach) {
      // With many values the DFA may never be idle again (some spelling is always under way): the region ends
      // here anyway. A spelling that ends later is the DFA's next accept, whose region starts one longest
      // spelling before it; so each character is still read by the Pike scan about twice at most.
      const regionFrom = cursor.regionFrom;
      cursor.regionFrom = -1;
      cursor.state = state;
      cursor.at = at + 1;
      return regionFrom;
    }
  }
  cursor.state = state;
  cursor.at = to;
  return -1;
}
