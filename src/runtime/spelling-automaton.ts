/**
 * A lazily built DFA over the spelling patterns of a redactor's values
 * (spelling-matcher.ts): a state is the set of pattern positions (value,
 * character index, trie node) still alive after the text read so far, plus
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
import type { SpellingPattern, TrieNode } from "./spelling-matcher.js";

/** Trie node ids are below this (spelling-matcher.ts TRIE_ID_SPACE). */
const NODE_SPACE = 4096;
/** Cached states before the cache is dropped: at most ~0.5 MB of transition table. */
const MAX_STATES = 1024;
const ASCII = 0x80;

interface Position {
  readonly pattern: number;
  readonly step: number;
  readonly node: TrieNode;
  readonly key: number;
}

export class SpellingAutomaton {
  private readonly firstStep: number[] = [];
  /** The patterns a spelling of which can start with each unit: a state is built from these, not from every pattern. */
  private readonly startersOf = new Map<number, number[]>();
  private sets: Position[][] = [];
  private accepting: boolean[] = [];
  private ascii = new Int32Array(0);
  private other: Map<number, number>[] = [];
  private index = new Map<string, number>();

  constructor(private readonly patterns: readonly SpellingPattern[]) {
    let steps = 0;
    for (const pattern of patterns) {
      this.firstStep.push(steps);
      steps += pattern.steps.length;
    }
    patterns.forEach((pattern, index) => {
      for (const code of pattern.steps[0]?.next.keys() ?? []) {
        const starters = this.startersOf.get(code);
        if (starters === undefined) this.startersOf.set(code, [index]);
        else starters.push(index);
      }
    });
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
    const next = new Map<number, Position>();
    let accept = false;
    const add = (pattern: number, step: number, node: TrieNode): void => {
      const key = ((this.firstStep[pattern] as number) + step) * NODE_SPACE + node.id;
      if (!next.has(key)) next.set(key, { pattern, step, node, key });
    };
    const advance = (pattern: number, step: number, node: TrieNode): void => {
      const child = node.next.get(code);
      if (child === undefined) return;
      if (child.next.size > 0) add(pattern, step, child);
      if (!child.end) return;
      const steps = (this.patterns[pattern] as SpellingPattern).steps;
      if (step + 1 === steps.length) accept = true;
      else add(pattern, step + 1, steps[step + 1] as TrieNode);
    };
    for (const position of this.sets[state] ?? []) advance(position.pattern, position.step, position.node);
    for (const index of this.startersOf.get(code) ?? []) advance(index, 0, (this.patterns[index] as SpellingPattern).steps[0] as TrieNode);
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
