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
  if (ids > TRIE_ID_SPACE) throw new Error("internal: a character has more spellings than the matcher allows");
  if (trieCache.size < MAX_CACHED_TRIES) trieCache.set(char, root);
  return root;
}

const literalCache = new Map<number, TrieNode>();

/** The trie of the UTF-16 unit `code` as it is, and nothing else. */
function literalTrieOf(code: number): TrieNode {
  let root = literalCache.get(code);
  if (root === undefined) {
    root = { id: 0, next: new Map([[code, { id: 1, next: new Map(), end: true }]]), end: false };
    literalCache.set(code, root);
  }
  return root;
}

/** Compiles a pattern of `text` exactly as it is (a fixed form of a value: base64, hex). */
export function compileLiteral(text: string, marker: string): SpellingPattern {
  const steps: TrieNode[] = [];
  for (let at = 0; at < text.length; at += 1) steps.push(literalTrieOf(text.charCodeAt(at)));
  return { steps, marker, maxLength: text.length };
}

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

/** The patterns of a redactor's values, and the UTF-16 units that can start a spelling of any. */
export interface SpellingSet {
  readonly patterns: readonly SpellingPattern[];
  /** 1 at the ASCII units that start some spelling: most characters start none, and one look-up skips them. */
  readonly asciiOpens: Uint8Array;
  /** The other units that start some spelling (a value's own non-ASCII first character). */
  readonly otherOpens: ReadonlySet<number>;
  /**
   * The patterns (indexes) a spelling of which can start with each unit: a
   * character starts threads only in these, not in every pattern, so the work
   * per character follows the threads alive, not the number of values.
   */
  readonly startersOf: ReadonlyMap<number, readonly number[]>;
}

/** Groups `patterns` for `findSpellings`. */
export function spellingSet(patterns: readonly SpellingPattern[]): SpellingSet {
  const asciiOpens = new Uint8Array(0x80);
  const otherOpens = new Set<number>();
  const startersOf = new Map<number, number[]>();
  patterns.forEach((pattern, index) => {
    for (const code of pattern.steps[0]?.next.keys() ?? []) {
      if (code < 0x80) asciiOpens[code] = 1;
      else otherOpens.add(code);
      const starters = startersOf.get(code);
      if (starters === undefined) startersOf.set(code, [index]);
      else starters.push(index);
    }
  });
  return { patterns, asciiOpens, otherOpens, startersOf };
}

/** Characters of text scanned between two yields of a generator that searches it: a bound on how long one slice blocks. */
export const SLICE_UNITS = 1 << 16;

const NO_STARTERS: readonly number[] = [];

/**
 * Pushes to `spans` every span of `text` within [from, to) that spells one of
 * the set's values (only spellings that start at or after `from` are seen),
 * and returns where the earliest spelling still under way at `to` started
 * (`to` when none is: a cut there leaves no start of a value in clear).
 * Each character advances only the patterns with a live thread and those it
 * can start a spelling of (`startersOf`), never every pattern: with a hundred
 * values of a text's own alphabet (base64 keys in base64 output) nearly every
 * character starts some pattern, and a pass over all of them per character
 * was what made such a search take a minute. Yields after every SLICE_UNITS
 * characters.
 */
export function* findSpellings(
  text: string,
  { patterns, asciiOpens, otherOpens, startersOf }: SpellingSet,
  range: { readonly from: number; readonly to: number },
  spans: Span[],
): Generator<void, number, void> {
  // Made on first use: a text without a character that starts a spelling costs no allocation.
  const scans: (Scan | undefined)[] = [];
  let live: number[] = [];
  let nextLive: number[] = [];
  // The character at which each pattern was last advanced: a pattern both live and a starter runs once.
  let advancedAt: Int32Array | undefined;
  for (let sliceFrom = range.from; sliceFrom < range.to; sliceFrom += SLICE_UNITS) {
    if (sliceFrom > range.from) yield;
    const sliceTo = Math.min(range.to, sliceFrom + SLICE_UNITS);
    for (let at = sliceFrom; at < sliceTo; at += 1) {
      const code = text.charCodeAt(at);
      if (live.length === 0 && (code < 0x80 ? asciiOpens[code] === 0 : !otherOpens.has(code))) continue;
      advancedAt ??= new Int32Array(patterns.length).fill(-1);
      nextLive.length = 0;
      for (const index of live) {
        advancedAt[index] = at;
        if ((scans[index] as Scan).advance(code, at) > 0) nextLive.push(index);
      }
      for (const index of startersOf.get(code) ?? NO_STARTERS) {
        if (advancedAt[index] === at) continue;
        advancedAt[index] = at;
        const scan = (scans[index] ??= new Scan(patterns[index] as SpellingPattern, spans));
        if (scan.advance(code, at) > 0) nextLive.push(index);
      }
      [live, nextLive] = [nextLive, live];
    }
  }
  let open = range.to;
  for (const index of live) open = Math.min(open, (scans[index] as Scan).earliestStart);
  return open;
}

/** Past this many threads, merging looks threads up in a set instead of scanning them. */
const SCAN_LIMIT = 16;
const NO_STEPS = new Int32Array(0);
const NO_STARTS = new Float64Array(0);

/**
 * The live threads of one pattern, in fixed arrays swapped at each character
 * with a count (nothing is allocated per character). Threads are kept in order
 * of start, so a merge keeps the earliest.
 */
class Scan {
  // Allocated on the first thread (grow): most patterns start none in a short text.
  private count = 0;
  private steps = NO_STEPS;
  private starts = NO_STARTS;
  private nodes: TrieNode[] = [];
  private nextCount = 0;
  private nextSteps = NO_STEPS;
  private nextStarts = NO_STARTS;
  private nextNodes: TrieNode[] = [];
  private seen: Set<number> | undefined;

  constructor(
    private readonly pattern: SpellingPattern,
    private readonly spans: Span[],
  ) {}

  /** Where the earliest live thread started (threads are kept in order of start); Infinity when none is live. */
  get earliestStart(): number {
    return this.count === 0 ? Infinity : (this.starts[0] as number);
  }

  /** Advances every thread, and a new one starting here, by `code` at `at`; returns the live count. */
  advance(code: number, at: number): number {
    const { pattern, count, steps, nodes, starts } = this;
    const first = pattern.steps[0] as TrieNode;
    if (count === 0 && !first.next.has(code)) return 0;
    this.nextCount = 0;
    this.seen = undefined;
    const last = pattern.steps.length;
    for (let t = 0; t <= count; t += 1) {
      const own = t < count;
      const step = own ? (steps[t] as number) : 0;
      const child = (own ? (nodes[t] as TrieNode) : first).next.get(code);
      if (child === undefined) continue;
      const start = own ? (starts[t] as number) : at;
      if (child.next.size > 0) this.add(step, child, start);
      if (!child.end) continue;
      if (step + 1 === last) this.spans.push({ start, end: at + 1, marker: pattern.marker });
      else this.add(step + 1, pattern.steps[step + 1] as TrieNode, start);
    }
    this.count = this.nextCount;
    this.steps = this.nextSteps;
    this.nodes = this.nextNodes;
    this.starts = this.nextStarts;
    this.nextSteps = steps;
    this.nextNodes = nodes;
    this.nextStarts = starts;
    return this.count;
  }

  private add(step: number, node: TrieNode, start: number): void {
    const { nextCount, nextSteps, nextNodes } = this;
    if (nextCount < SCAN_LIMIT) {
      for (let i = 0; i < nextCount; i += 1) if (nextSteps[i] === step && nextNodes[i] === node) return;
    } else {
      if (this.seen === undefined) {
        this.seen = new Set();
        for (let i = 0; i < nextCount; i += 1) this.seen.add((nextSteps[i] as number) * TRIE_ID_SPACE + (nextNodes[i] as TrieNode).id);
      }
      const key = step * TRIE_ID_SPACE + node.id;
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    if (nextCount === this.nextSteps.length) this.grow();
    this.nextSteps[nextCount] = step;
    this.nextNodes[nextCount] = node;
    this.nextStarts[nextCount] = start;
    this.nextCount = nextCount + 1;
  }

  /** Doubles the room for threads (a pattern has a bounded number of distinct ones). */
  private grow(): void {
    const size = Math.max(SCAN_LIMIT, this.nextSteps.length * 2);
    const steps = new Int32Array(size);
    steps.set(this.nextSteps);
    const starts = new Float64Array(size);
    starts.set(this.nextStarts);
    this.nextSteps = steps;
    this.nextStarts = starts;
  }
}
