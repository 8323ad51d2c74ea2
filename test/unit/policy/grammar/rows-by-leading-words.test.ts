/**
 * The command-table index picks, in table order, exactly the rows a full scan
 * would test true: for random tables and calls over a few words (so paths share
 * words and prefixes), the rows it returns that run the call are the rows of the
 * whole table that do, whichever of the call's word sequences runs them.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { runsCommandPath } from "../../../../src/policy/grammar/command-path.js";
import { rowsStartingWith } from "../../../../src/policy/grammar/rows-by-leading-words.js";

const word = fc.constantFrom("a", "b", "c", "d");
const path = fc.array(word, { maxLength: 4 });
const table = fc.array(
  path.map((command) => ({ command })),
  { maxLength: 30 },
);

/** The tests the tables' users make: a canonical path that starts with the row's, or the command words running it. */
const startsWith = (tokens: readonly string[], command: readonly string[]): boolean =>
  command.length <= tokens.length && command.every((part, i) => tokens[i] === part);
const runs = (positionals: readonly string[], words: readonly string[], command: readonly string[]): boolean =>
  startsWith(positionals, command) || runsCommandPath(words, command);

describe("rowsStartingWith", () => {
  it("keeps every row a full scan matches, in table order", () => {
    fc.assert(
      fc.property(table, path, path, (rows, positionals, words) => {
        // Read twice: the second read comes from the index built by the first.
        for (let read = 0; read < 2; read += 1) {
          const candidates = rowsStartingWith(rows, [positionals, words]);
          expect(candidates.filter((row) => runs(positionals, words, row.command))).toEqual(rows.filter((row) => runs(positionals, words, row.command)));
          expect(candidates.every((row) => rows.indexOf(row) !== -1)).toBe(true);
          const positions = candidates.map((row) => rows.indexOf(row));
          expect(positions).toEqual([...positions].sort((x, y) => x - y));
        }
      }),
      { seed: 21, numRuns: 300 },
    );
  });

  it("leaves out the rows whose leading words are neither sequence's", () => {
    const rows = [{ command: [] }, { command: ["a"] }, { command: ["a", "b", "c"] }, { command: ["a", "c"] }, { command: ["b"] }, { command: ["b", "a"] }];
    expect(rowsStartingWith(rows, [["a", "b", "x"]])).toEqual([rows[0], rows[1], rows[2]]);
    expect(
      rowsStartingWith(rows, [
        ["a", "b"],
        ["b", "a"],
      ]),
    ).toEqual([rows[0], rows[1], rows[2], rows[4], rows[5]]);
    expect(rowsStartingWith(rows, [[]])).toEqual([rows[0]]);
  });
});
