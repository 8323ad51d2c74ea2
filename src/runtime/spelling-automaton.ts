/**
 * A lazily built DFA over the spelling patterns of a redactor's values
 * (spelling-matcher.ts), merged into one prefix tree (spelling-tree.ts): a
 * state is the set of tree positions (segment, character index, trie node)
 * still alive after the text read so far, plus
 * whether a whole value was spelled at the last character. States and their
 * transitions are built on first use and cached, RE2-style, so a text costs
 * one table look-up per character once warm, whatever its content; the cache
 * is bounded (past MAX_STATES it is dropped and rebuilt as the text goes on),
 * so the cost stays linear with a constant bounded by the patterns' size.
 *
 * It finds where spellings end, not where they start: the search
 * (spelling-search.ts) hands the few places where one ended to the Pike scan,
 * which knows starts. State 0 is the idle state: nothing alive, nothing ended.
 *
 * Pure: no I/O.
 */
import { SEGMENT_END, type SpellingSet, type TrieNode } from "./spelling-matcher.js";
import type { Segment } from "./spelling-tree.js";

/** Trie node ids are below this (spelling-matcher.ts TRIE_ID_SPACE). */
const NODE_SPACE = 4096;
/** Cached states before the cache is dropped: at most ~0.5 MB of transition table. */
const MAX_STATES = 1024;
const ASCII = 0x80;

interface Position {
  readonly segment: Segment;
  readonly step: number;
  readonly node: TrieNode;
  readonly key: number;
}

export class SpellingAutomaton {
  private readonly startersOf: ReadonlyMap<number, readonly Segment[]>;
  /** States built so far (spelling-search.ts hands a stretch that builds one at nearly every character to the Pike scan). */
  built = 0;
  private sets: Position[][] = [];
  private accepting: boolean[] = [];
  private ascii = new Int32Array(0);
  private other: Map<number, number>[] = [];
  private index = new Map<string, number>();

  constructor(set: SpellingSet) {
    this.startersOf = set.startersOf;
    this.reset();
  }

  /** The state after reading `code` in `state`. */
  next(state: number, code: number): number {
    const known = code < ASCII ? (this.ascii[state * ASCII + code] as number) : (this.other[state]?.get(code) ?? -1);
    return known >= 0 ? known : this.build(state, code);
  }

  /** A whole value was spelled at the character that led to `state`. */
  accepts(state: number): boolean {
    return this.accepting[state] === true;
  }

  private reset(): void {
    this.sets = [];
    this.accepting = [];
    this.other = [];
    this.index = new Map();
    this.ascii = new Int32Array(64 * ASCII).fill(-1);
    this.intern([], false);
  }

  private build(state: number, code: number): number {
    this.built += 1;
    const next = new Map<number, Position>();
    let accept = false;
    const add = (segment: Segment, step: number, node: TrieNode): void => {
      const key = (segment.base + step - segment.from) * NODE_SPACE + node.id;
      if (!next.has(key)) next.set(key, { segment, step, node, key });
    };
    const advance = (segment: Segment, step: number, node: TrieNode): void => {
      if (node === SEGMENT_END) {
        for (const next of segment.childrenByCode.get(code) ?? []) advance(next, next.from, next.steps[next.from] as TrieNode);
        return;
      }
      const child = node.next.get(code);
      if (child === undefined) return;
      if (child.next.size > 0) add(segment, step, child);
      if (!child.end) return;
      if (step + 1 < segment.to) {
        add(segment, step + 1, segment.steps[step + 1] as TrieNode);
        return;
      }
      if (segment.marker !== undefined) accept = true;
      if (segment.children.length > 0) add(segment, segment.to, SEGMENT_END);
    };
    for (const position of this.sets[state] ?? []) advance(position.segment, position.step, position.node);
    for (const root of this.startersOf.get(code) ?? []) advance(root, root.from, root.steps[root.from] as TrieNode);
    const positions = [...next.values()].sort((a, b) => a.key - b.key);
    const full = this.sets.length >= MAX_STATES;
    if (full) this.reset();
    const target = this.intern(positions, accept);
    // After a reset `state` no longer names its set: the transition is not cached, the target is still right.
    if (full) return target;
    if (code < ASCII) this.ascii[state * ASCII + code] = target;
    else (this.other[state] as Map<number, number>).set(code, target);
    return target;
  }

  private intern(positions: Position[], accept: boolean): number {
    const name = `${accept ? "+" : ""}${positions.map((position) => position.key).join(",")}`;
    const known = this.index.get(name);
    if (known !== undefined) return known;
    const state = this.sets.length;
    this.sets.push(positions);
    this.accepting.push(accept);
    this.other.push(new Map());
    this.index.set(name, state);
    if ((state + 1) * ASCII > this.ascii.length) {
      const grown = new Int32Array(this.ascii.length * 2).fill(-1);
      grown.set(this.ascii);
      this.ascii = grown;
    }
    return state;
  }
}
