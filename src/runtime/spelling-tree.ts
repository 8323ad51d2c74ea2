/**
 * The spelling patterns of a redactor's values merged into one prefix tree
 * (a radix tree over their steps), for the searches (spelling-matcher.ts,
 * spelling-automaton.ts).
 *
 * Values often share a long start: two hundred PEM keys all begin with
 * `-----BEGIN PRIVATE KEY-----` and the same DER header, JWTs with the same
 * `eyJhbGciOi…` header, and so do their base64 and hex forms. Searched one
 * pattern at a time, every such value kept its own thread alive along the
 * shared start: work per character grew with the number of values, and the
 * DFA's states (sets of positions) with it; 200 PEM keys took seconds for
 * one printed key. In the tree a shared start is one path, so one thread
 * walks it, and the paths split only where the values differ.
 *
 * A step is a character's spelling trie (spelling-matcher.ts), cached per
 * character, so two patterns share a step exactly when the step is the same
 * object. A segment is a run of steps with no split inside; it borrows them
 * from the pattern that created it (nothing is copied).
 *
 * Pure: no I/O.
 */
import type { TrieNode } from "./spelling-matcher.js";

/** A run of steps shared by every pattern under it. */
export interface Segment {
  /** The steps of the pattern this run was taken from; the segment is [from, to) of them. */
  readonly steps: readonly TrieNode[];
  readonly from: number;
  to: number;
  /** The marker of a pattern that ends where this segment ends (the first inserted wins). */
  marker: string | undefined;
  /** The segments that continue this one; each starts with a different step. */
  children: Segment[];
  /**
   * The children a spelling of whose first step can start with each unit: a
   * thread at the end of this segment waits for the next unit and continues
   * in these only (a segment shared by many values has as many children as
   * their next characters differ, and most die at once).
   */
  childrenByCode: Map<number, Segment[]>;
  /** The number of steps of all segments numbered before this one: `base + step - from` names a step of the tree. */
  base: number;
}

const NO_CHILDREN = new Map<number, Segment[]>();

/** `segments` by each unit a spelling of their first step can start with. */
export function byFirstCode(segments: readonly Segment[]): Map<number, Segment[]> {
  const map = new Map<number, Segment[]>();
  for (const segment of segments) {
    for (const code of (segment.steps[segment.from] as TrieNode).next.keys()) {
      const list = map.get(code);
      if (list === undefined) map.set(code, [segment]);
      else list.push(segment);
    }
  }
  return map;
}

/** The segments the patterns start with. */
export function prefixTree(patterns: readonly { readonly steps: readonly TrieNode[]; readonly marker: string }[]): Segment[] {
  const roots = new Map<TrieNode, Segment>();
  const childMaps = new Map<Segment, Map<TrieNode, Segment>>();
  const mapOf = (segment: Segment): Map<TrieNode, Segment> => {
    let map = childMaps.get(segment);
    if (map === undefined) childMaps.set(segment, (map = new Map<TrieNode, Segment>()));
    return map;
  };
  for (const { steps, marker } of patterns) {
    if (steps.length === 0) continue;
    let level = roots;
    let at = 0;
    for (;;) {
      const segment = level.get(steps[at] as TrieNode);
      if (segment === undefined) {
        level.set(steps[at] as TrieNode, { steps, from: at, to: steps.length, marker, children: [], childrenByCode: NO_CHILDREN, base: 0 });
        break;
      }
      let own = segment.from;
      while (own < segment.to && at < steps.length && segment.steps[own] === steps[at]) {
        own += 1;
        at += 1;
      }
      if (own < segment.to) {
        // The pattern leaves (or ends) inside the segment: split it where it does.
        const rest: Segment = {
          steps: segment.steps,
          from: own,
          to: segment.to,
          marker: segment.marker,
          children: segment.children,
          childrenByCode: NO_CHILDREN,
          base: 0,
        };
        const restMap = childMaps.get(segment);
        if (restMap !== undefined) childMaps.set(rest, restMap);
        childMaps.set(segment, new Map([[segment.steps[own] as TrieNode, rest]]));
        segment.to = own;
        segment.marker = undefined;
      }
      if (at === steps.length) {
        segment.marker ??= marker;
        break;
      }
      level = mapOf(segment);
    }
  }
  // Children as arrays, and every step of the tree numbered (DFA positions and thread merging use the numbers).
  let base = 0;
  const pending = [...roots.values()];
  for (let segment = pending.pop(); segment !== undefined; segment = pending.pop()) {
    segment.children = [...(childMaps.get(segment)?.values() ?? [])];
    if (segment.children.length > 0) segment.childrenByCode = byFirstCode(segment.children);
    segment.base = base;
    base += segment.to - segment.from;
    pending.push(...segment.children);
  }
  return [...roots.values()];
}
