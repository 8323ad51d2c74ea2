/**
 * Finds a value in text where each of its characters may be spelled any of
 * several ways (secret-forms.ts `characterSpellings`): the value is compiled
 * to one pattern, a sequence of per-character tries of spellings, and the text
 * is scanned once, Pike-VM style. A thread is (character index, trie node,
 * start); every live thread advances by each text character, and threads that
 * reach the same (index, node) are merged, keeping the earliest start (its span
 * covers the later one's). So the work per text character is bounded by the
 * pattern's size, whatever the text: linear time, no backtracking. The pattern
 * is bounded too: a few dozen spellings of at most 24 characters per distinct
 * character of the value.
 *
 * (RE2 via re2js, the rule engine, runs the same pattern in linear time but at
 * about 160 ms of CPU per MB per value; this scan skips every character that
 * cannot start a spelling with one table look-up.)
 *
 * Pure: no I/O (character tries are cached, bounded, since they do not depend on the value).
 */
import { characterSpellings } from "./secret-forms.js";
import { byFirstCode, prefixTree, type Segment } from "./spelling-tree.js";

export interface TrieNode {
  readonly id: number;
  readonly next: Map<number, TrieNode>;
  end: boolean;
}

/** One value's pattern: the spelling trie of each of its characters, in order. */
export interface SpellingPattern {
  readonly steps: readonly TrieNode[];
  readonly marker: string;
  /** The longest spelling of the whole value, in UTF-16 units: no span is longer. */
  readonly maxLength: number;
}

/** A piece of text that spells a value. */
export interface Span {
  start: number;
  end: number;
  marker: string;
}

/** Node ids of one trie are below this (a character has at most a few dozen short spellings). */
const TRIE_ID_SPACE = 4096;
/**
 * The node of a thread (or DFA position) at the end of a segment that has
 * children, waiting for the unit that picks them (Segment `childrenByCode`).
 * Its id is one no trie node has.
 */
export const SEGMENT_END: TrieNode = { id: TRIE_ID_SPACE - 1, next: new Map(), end: false };
/** Tries kept for characters already seen (they do not depend on the value); a bound on the memory they use. */
const MAX_CACHED_TRIES = 2048;
const trieCache = new Map<string, TrieNode>();
const depthCache = new Map<string, number>();

/** The trie of every spelling of `char`. */
function trieOf(char: string): TrieNode {
  const cached = trieCache.get(char);
  if (cached !== undefined) return cached;
  let ids = 0;
  const newNode = (): TrieNode => ({ id: ids++, next: new Map(), end: false });
  const root = newNode();
  for (const spelling of characterSpellings(char)) {
    let node = root;
    for (let i = 0; i < spelling.length; i += 1) {
      const code = spelling.charCodeAt(i);
      let child = node.next.get(code);
      if (child === undefined) node.next.set(code, (child = newNode()));
      node = child;
    }
    node.end = true;
  }
  if (ids >= TRIE_ID_SPACE - 1) throw new Error("internal: a character has more spellings than the matcher allows");
  if (trieCache.size < MAX_CACHED_TRIES) trieCache.set(char, root);
  return root;
}

const literalCache = new Map<string, TrieNode>();

/** The trie of any one of the UTF-16 units `units` (one unit or its variants), and nothing else. */
function literalTrieOf(units: string): TrieNode {
  let root = literalCache.get(units);
  if (root === undefined) {
    const end: TrieNode = { id: 1, next: new Map(), end: true };
    root = { id: 0, next: new Map(Array.from({ length: units.length }, (_, at) => [units.charCodeAt(at), end])), end: false };
    if (literalCache.size < MAX_CACHED_TRIES) literalCache.set(units, root);
  }
  return root;
}

/**
 * Compiles a pattern of `text` as it is (a fixed form of a value: base64,
 * hex), each of its units also matching its `variants`; the same trie object
 * for the same units, so patterns with a common start share it
 * (spelling-tree.ts).
 */
export function compileLiteral(text: string, marker: string, variants: Readonly<Record<string, string>> = NO_VARIANTS): SpellingPattern {
  let ascii = asciiTries.get(variants);
  if (ascii === undefined) asciiTries.set(variants, (ascii = new Array<TrieNode | undefined>(0x80)));
  const steps = new Array<TrieNode>(text.length);
  for (let at = 0; at < text.length; at += 1) {
    const code = text.charCodeAt(at);
    const unit = text[at] as string;
    steps[at] = code < 0x80 ? (ascii[code] ??= literalTrieOf(variants[unit] ?? unit)) : literalTrieOf(variants[unit] ?? unit);
  }
  return { steps, marker, maxLength: text.length };
}

const NO_VARIANTS: Readonly<Record<string, string>> = {};
/** The tries of ASCII units, by variants table: one array look-up per unit of a fixed form. */
const asciiTries = new WeakMap<Readonly<Record<string, string>>, (TrieNode | undefined)[]>();

/** The length of `char`'s longest spelling. */
function depthOf(char: string): number {
  let depth = depthCache.get(char);
  if (depth === undefined) {
    depth = Math.max(...characterSpellings(char).map((spelling) => spelling.length));
    if (depthCache.size < MAX_CACHED_TRIES) depthCache.set(char, depth);
  }
  return depth;
}

/** Compiles `value`'s pattern. */
export function compileSpellings(value: string, marker: string): SpellingPattern {
  const chars = Array.from(value);
  return { steps: chars.map(trieOf), marker, maxLength: chars.reduce((sum, char) => sum + depthOf(char), 0) };
}

/** The patterns of a redactor's values merged into a prefix tree, and the UTF-16 units that can start a spelling of any. */
export interface SpellingSet {
  readonly patterns: readonly SpellingPattern[];
  /** The longest spelling of any pattern, in UTF-16 units: no span is longer (a search's reach, a cut's tail). */
  readonly longest: number;
  /** 1 at the ASCII units that start some spelling: most characters start none, and one look-up skips them. */
  readonly asciiOpens: Uint8Array;
  /** The other units that start some spelling (a value's own non-ASCII first character). */
  readonly otherOpens: ReadonlySet<number>;
  /**
   * The first segments a spelling of which can start with each unit: a
   * character starts threads only in these, so the work per character follows
   * the threads alive, not the number of values.
   */
  readonly startersOf: ReadonlyMap<number, readonly Segment[]>;
}

/** Groups `patterns` for `findSpellings`. */
export function spellingSet(patterns: readonly SpellingPattern[]): SpellingSet {
  const startersOf = byFirstCode(prefixTree(patterns));
  const asciiOpens = new Uint8Array(0x80);
  const otherOpens = new Set<number>();
  for (const code of startersOf.keys()) {
    if (code < 0x80) asciiOpens[code] = 1;
    else otherOpens.add(code);
  }
  const longest = patterns.reduce((most, pattern) => Math.max(most, pattern.maxLength), 0);
  return { patterns, longest, asciiOpens, otherOpens, startersOf };
}

/** Characters of text scanned between two yields of a generator that searches it: a bound on how long one slice blocks. */
export const SLICE_UNITS = 1 << 16;

const NO_STARTERS: readonly Segment[] = [];

/**
 * Pushes to `spans` every span of `text` within [from, to) that spells one of
 * the set's values (only spellings that start at or after `from` are seen),
 * and returns where the earliest spelling still under way at `to` started
 * (`to` when none is: a cut there leaves no start of a value in clear); a
 * thread dropped past MAX_STARTS counts as under way while what is masked
 * for it (droppedReach) reaches past `to`.
 * Each character advances only the threads alive and the first segments it
 * can start (`startersOf`), never every value: with a hundred values of a
 * text's own alphabet (base64 keys in base64 output) nearly every character
 * starts some, and values with a common start share one thread along it
 * (spelling-tree.ts). Yields after every SLICE_UNITS characters.
 */
export function* findSpellings(
  text: string,
  set: SpellingSet,
  range: { readonly from: number; readonly to: number },
  spans: Span[],
): Generator<void, number, void> {
  const threads = new Threads(spans, text.length, droppedReach(set.longest), range.to);
  yield* scan(text, set, range.from, range.to, Infinity, threads);
  return Math.min(threads.count === 0 ? range.to : threads.earliestStart, threads.earliestDropReaching);
}

/**
 * Like findSpellings from `from`, but stops at the first place at or after
 * `idleFrom` where no spelling is under way, or at `to`: returns where it
 * stopped and whether nothing was under way there (spelling-search.ts hands
 * it the stretches of text where a long value is being spelled, which the
 * DFA would read building a new state at every character).
 */
export function* findSpellingsUntilIdle(
  text: string,
  set: SpellingSet,
  range: { readonly from: number; readonly idleFrom: number; readonly to: number },
  spans: Span[],
): Generator<void, { readonly at: number; readonly idle: boolean }, void> {
  const threads = new Threads(spans, text.length, droppedReach(set.longest), Infinity);
  const at = yield* scan(text, set, range.from, range.to, range.idleFrom, threads);
  return { at, idle: threads.count === 0 };
}

function* scan(text: string, set: SpellingSet, from: number, to: number, idleFrom: number, threads: Threads): Generator<void, number, void> {
  const { asciiOpens, otherOpens, startersOf } = set;
  for (let sliceFrom = from; sliceFrom < to; sliceFrom += SLICE_UNITS) {
    if (sliceFrom > from) yield;
    const sliceTo = Math.min(to, sliceFrom + SLICE_UNITS);
    for (let at = sliceFrom; at < sliceTo; at += 1) {
      if (threads.count === 0) {
        if (at >= idleFrom) return at;
        const code = text.charCodeAt(at);
        if (code < 0x80 ? asciiOpens[code] === 0 : !otherOpens.has(code)) continue;
        threads.advance(code, at, startersOf.get(code) ?? NO_STARTERS);
      } else {
        const code = text.charCodeAt(at);
        threads.advance(code, at, startersOf.get(code) ?? NO_STARTERS);
      }
    }
  }
  return to;
}

/** Past this many threads, merging looks threads up in a set instead of scanning them. */
const SCAN_LIMIT = 16;

/**
 * The most distinct starts whose threads are kept alive at once. One start
 * fans out into at most one thread per place in the values' tree its text has
 * reached (an escape character such as `\`, `%` or `&` begins a spelling of
 * every value's first character: one start, many threads), and that fan-out
 * is bounded by the values themselves. Distinct starts are what ordinary text
 * keeps few of (a value's random characters let few of its starts overlap)
 * and what a value with a long periodic run (`abab…`, a run of one character,
 * of backslashes) multiplies: text that repeats the run keeps one start per
 * period alive, and every character of such text then advanced them all (a
 * 4 KiB `abab…` value took minutes on 1 MB of `abab…` output, quadratic in
 * what the child prints). Past this bound the newest start is not kept, with
 * all its threads, and the text it could spell is masked instead
 * (OVERLAPPING_MARKER): fail closed, at a bounded cost per character.
 * Counting threads instead made an escape character with 64 values of
 * distinct first characters mask ordinary output, and which short texts were
 * masked told which characters the values start with.
 */
const MAX_STARTS = 64;

/**
 * The marker of text masked because it spelled more overlapping starts of
 * values than the search follows (MAX_STARTS): it names no variable, which
 * value the text was spelling is not known.
 */
export const OVERLAPPING_MARKER = "[redacted:overlapping-spellings]";

/**
 * How far past its start a dropped thread's text is masked: the longest
 * spelling (no span is longer), rounded up to a power of two. Where such a
 * mask ends is seen, after a start the output chose; the exact longest
 * spelling would tell the longest value's length and whether it holds
 * characters with longer escapes, which the cut tail is rounded up to hide too
 * (redaction.ts `cutTailLength`).
 */
function droppedReach(longest: number): number {
  let reach = 1;
  while (reach < longest) reach *= 2;
  return reach;
}

/**
 * The live threads of a scan, a thread being (segment, step, trie node,
 * start), in arrays swapped at each character with a count (nothing is
 * allocated per character once grown; plain arrays, which cost less to make
 * than typed ones for the many short regions a text full of matches hands
 * over). Threads are kept in order of start, and two that reach the same
 * (segment, step, node) merge into the earlier (its span covers the later
 * one's): Pike-VM style, linear in the text.
 */
class Threads {
  count = 0;
  private segments: Segment[] = [];
  private steps: number[] = [];
  private nodes: TrieNode[] = [];
  private starts: number[] = [];
  private nextCount = 0;
  private nextSegments: Segment[] = [];
  private nextSteps: number[] = [];
  private nextNodes: TrieNode[] = [];
  private nextStarts: number[] = [];
  private seen: Set<number> | undefined;
  /** How many distinct starts the next threads hold, and the newest (threads are added in order of start). */
  private nextStartCount = 0;
  private nextNewestStart = -1;
  /** The last span masked for a start not kept (MAX_STARTS), extended while more are dropped within it. */
  private dropped: Span | undefined;
  /**
   * Where the earliest thread not kept started whose spelling could still be
   * under way at `reached` (its reach, droppedReach, passes it); Infinity
   * when none. A dropped thread is no live one, but a cut there
   * must not leave its start in clear (redaction.ts `openAtCut`).
   */
  earliestDropReaching = Infinity;

  /**
   * `textLength` and `reach` bound what a thread not kept could still spell: no span is longer than `reach`
   * (droppedReach); `reached` is where the scan's caller asks what is still under way (`earliestDropReaching`).
   */
  constructor(
    private readonly spans: Span[],
    private readonly textLength: number,
    private readonly reach: number,
    private readonly reached: number,
  ) {}

  /** Where the earliest live thread started. */
  get earliestStart(): number {
    return this.starts[0] as number;
  }

  /** Advances every thread, and new ones in `starters` (starting at `at`, after every live one), by `code` at `at`. */
  advance(code: number, at: number, starters: readonly Segment[]): void {
    const { count, segments, steps, nodes, starts } = this;
    this.nextCount = 0;
    this.nextStartCount = 0;
    this.nextNewestStart = -1;
    this.seen = undefined;
    for (let t = 0; t < count; t += 1) this.step(segments[t] as Segment, steps[t] as number, nodes[t] as TrieNode, starts[t] as number, code, at);
    for (const root of starters) this.step(root, root.from, root.steps[root.from] as TrieNode, at, code, at);
    this.count = this.nextCount;
    [this.segments, this.nextSegments] = [this.nextSegments, segments];
    [this.steps, this.nextSteps] = [this.nextSteps, steps];
    [this.nodes, this.nextNodes] = [this.nextNodes, nodes];
    [this.starts, this.nextStarts] = [this.nextStarts, starts];
  }

  private step(segment: Segment, step: number, node: TrieNode, start: number, code: number, at: number): void {
    if (node === SEGMENT_END) {
      for (const next of segment.childrenByCode.get(code) ?? NO_STARTERS) this.step(next, next.from, next.steps[next.from] as TrieNode, start, code, at);
      return;
    }
    const child = node.next.get(code);
    if (child === undefined) return;
    if (child.next.size > 0) this.add(segment, step, child, start);
    if (!child.end) return;
    if (step + 1 < segment.to) {
      this.add(segment, step + 1, segment.steps[step + 1] as TrieNode, start);
      return;
    }
    if (segment.marker !== undefined) this.spans.push({ start, end: at + 1, marker: segment.marker });
    if (segment.children.length > 0) this.add(segment, segment.to, SEGMENT_END, start);
  }

  private add(segment: Segment, step: number, node: TrieNode, start: number): void {
    const { nextCount, nextSegments, nextSteps, nextNodes } = this;
    if (nextCount < SCAN_LIMIT) {
      for (let i = 0; i < nextCount; i += 1) if (nextSteps[i] === step && nextNodes[i] === node && nextSegments[i] === segment) return;
    } else {
      if (this.seen === undefined) {
        this.seen = new Set();
        for (let i = 0; i < nextCount; i += 1) {
          const own = nextSegments[i] as Segment;
          this.seen.add((own.base + (nextSteps[i] as number) - own.from) * TRIE_ID_SPACE + (nextNodes[i] as TrieNode).id);
        }
      }
      const key = (segment.base + step - segment.from) * TRIE_ID_SPACE + node.id;
      if (this.seen.has(key)) return;
      if (!this.keepsStart(start)) return;
      this.seen.add(key);
    }
    if (nextCount < SCAN_LIMIT && !this.keepsStart(start)) return;
    this.nextSegments[nextCount] = segment;
    this.nextSteps[nextCount] = step;
    this.nextNodes[nextCount] = node;
    this.nextStarts[nextCount] = start;
    this.nextCount = nextCount + 1;
  }

  /**
   * Whether a thread started at `start` is kept: threads come in order of start, and a start not among the first
   * MAX_STARTS is dropped (masked) with all its threads.
   */
  private keepsStart(start: number): boolean {
    if (start === this.nextNewestStart) return true;
    if (this.nextStartCount >= MAX_STARTS) {
      this.drop(start);
      return false;
    }
    this.nextStartCount += 1;
    this.nextNewestStart = start;
    return true;
  }

  /**
   * A thread started at `start` is not kept: any span it could end in lies
   * within the longest spelling from its start, and all of that is masked
   * (up to its size class: droppedReach).
   * The masks of a dense stretch overlap and merge into one span (a few
   * spans per stretch, not one per character).
   */
  private drop(start: number): void {
    if (start + this.reach > this.reached && start < this.earliestDropReaching) this.earliestDropReaching = start;
    const end = Math.min(this.textLength, start + this.reach);
    const last = this.dropped;
    if (last !== undefined && start <= last.end && end >= last.start) {
      last.start = Math.min(last.start, start);
      last.end = Math.max(last.end, end);
      return;
    }
    this.dropped = { start, end, marker: OVERLAPPING_MARKER };
    this.spans.push(this.dropped);
  }
}
