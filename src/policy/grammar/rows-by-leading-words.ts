/**
 * The rows of a command table (file writes and reads, locked commands and
 * command-scoped locked options) that a call may run, picked by their first
 * two command words instead of testing every row.
 *
 * Every test of a row against a call (a canonical path that starts with the
 * row's, or command-path.ts's reading of the call's words, whose first two
 * words follow each other directly) compares the row's first two words (or its
 * only one) exactly with the first words of one of the call's word sequences.
 * Any other row cannot match; a row with an empty path matches every call and
 * is always a candidate. The tables are long (gcloud lists ~1,600 reads and
 * ~600 writes) and are read for every call evaluated, so each table's index is
 * built once, on first use, and kept as long as the table is. The candidates
 * keep the table's order: a caller that takes the first match (or the first of
 * the deepest) gets the row a full scan would.
 */

/** A row of a command table: its command path, empty for every command. */
interface CommandRow {
  readonly command: readonly string[];
}

/** The rows of one key, and their positions in the table (to merge keys in table order). */
interface Group {
  readonly rows: CommandRow[];
  readonly positions: number[];
}

/** Per table: its rows by the key of their leading words. */
const indexes = new WeakMap<readonly CommandRow[], Map<string, Group>>();

/** The key of a path's first two words (or its only one, or none); NUL is in no command word. */
function keyOf(path: readonly string[]): string {
  return [String(Math.min(path.length, 2)), ...path.slice(0, 2)].join("\0");
}

function indexOf(rows: readonly CommandRow[]): Map<string, Group> {
  const known = indexes.get(rows);
  if (known !== undefined) return known;
  const index = new Map<string, Group>();
  rows.forEach((row, position) => {
    const key = keyOf(row.command);
    const group = index.get(key);
    if (group === undefined) index.set(key, { rows: [row], positions: [position] });
    else {
      group.rows.push(row);
      group.positions.push(position);
    }
  });
  indexes.set(rows, index);
  return index;
}

/**
 * The rows of `rows` that a call may run whose word sequences are `starts`
 * (its canonical positionals, its command words: only their first two words
 * are read), in table order. Which of them it runs is still the caller's test.
 */
export function rowsStartingWith<Row extends CommandRow>(rows: readonly Row[], starts: readonly (readonly string[])[]): readonly Row[] {
  const index = indexOf(rows);
  const keys = new Set([keyOf([])]);
  for (const start of starts) {
    if (start.length >= 1) keys.add(keyOf(start.slice(0, 1)));
    if (start.length >= 2) keys.add(keyOf(start.slice(0, 2)));
  }
  const groups = [...keys].map((key) => index.get(key)).filter((group) => group !== undefined);
  if (groups.length === 0) return [];
  if (groups.length === 1) return (groups[0] as Group).rows as Row[];
  const positions = groups.flatMap((group) => group.positions).sort((a, b) => a - b);
  return positions.map((position) => rows[position] as Row);
}
