/**
 * gcloud's generated file tables are folded by release track (a row lists its
 * `tracks`; scripts/providers/release_tracks.py, src/config/release-tracks.ts).
 * Folding must change no decision: every row of the unfolded tables, as the
 * generators list them (one row per track, in their order), is made into calls,
 * and each call decides exactly as it does with the bundled, folded provider.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { FileWriteSpec } from "../../../src/policy/grammar/types.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const at = (file: string): string => fileURLToPath(new URL(`../../../${file}`, import.meta.url));
const PYTHON = "/usr/bin/python3";

/** A listing line `command words --long [-s] [DEFAULT:path]` or `command words OPERAND:name` (gcloud_file_reads.py --print) as a row. */
function readRow(line: string): FileWriteSpec {
  const words = line.split(" ");
  const command = words.filter((word) => !word.startsWith("-") && !word.startsWith("OPERAND:") && !word.startsWith("DEFAULT:"));
  const operand = words.find((word) => word.startsWith("OPERAND:"));
  if (operand !== undefined) return { command, operand: operand.slice("OPERAND:".length) };
  const short = words.find((word) => /^-[A-Za-z0-9]$/.test(word));
  const option = words.find((word) => word.startsWith("--")) as string;
  const defaultPath = words.find((word) => word.startsWith("DEFAULT:"))?.slice("DEFAULT:".length);
  const row = short === undefined ? { command, option } : { command, option, short };
  return defaultPath === undefined ? row : { ...row, defaultPath };
}

/** The `write` lines of scripts/providers/gcloud-file-writes.txt (`path words --flag|<operand>  # write`) as rows. */
function writeRows(): FileWriteSpec[] {
  return readFileSync(at("scripts/providers/gcloud-file-writes.txt"), "utf8")
    .split("\n")
    .filter((line) => line.endsWith("  # write"))
    .map((line) => {
      const words = line.split("  # ")[0]!.split(" ");
      const argument = words.at(-1)!;
      const command = words.slice(0, -1);
      return argument.startsWith("<") ? { command, operand: argument.slice(1, -1) } : { command, option: argument };
    });
}

/** A call per row that uses its argument; per command, one that uses every argument of the command at once (which row answers first). */
function callsOf(rows: readonly FileWriteSpec[]): { perRow: string[][]; perCommand: string[][] } {
  const byCommand = new Map<string, FileWriteSpec[]>();
  for (const row of rows) byCommand.set(row.command.join(" "), [...(byCommand.get(row.command.join(" ")) ?? []), row]);
  const argument = (row: FileWriteSpec): string => (row.option === undefined ? "/tmp/f" : `${row.option}=/tmp/f`);
  return {
    perRow: rows.map((row) => [...row.command, argument(row)]),
    perCommand: [...byCommand.values()].map((same) => [...same[0]!.command, ...same.map(argument)]),
  };
}

/**
 * The calls whose decision differs between two contexts: every call under a broad
 * rule (a listed argument holds it, and the reason names the row that answered),
 * the per-command calls also under rules naming each command (one rule list).
 */
function differing(before: ProviderPolicyContext, after: ProviderPolicyContext, rows: readonly FileWriteSpec[]): string[] {
  const { perRow, perCommand } = callsOf(rows);
  const commands = [...new Set(rows.map((row) => row.command.join(" ")))];
  const out: string[] = [];
  for (const [accept, calls] of [
    [["/.*/"], [...perRow, ...perCommand]],
    [commands, perCommand],
  ] as const) {
    const rules = { shared: ruleList([], accept) };
    const [old, folded] = [compilePolicy(before, rules), compilePolicy(after, rules)];
    for (const argv of calls) {
      if (!isDeepStrictEqual(evaluatePolicy(old, argv).decision, evaluatePolicy(folded, argv).decision))
        out.push(`${argv.join(" ")} under ${accept.length} rules`);
    }
  }
  return out;
}

describe("gcloud: folding the release tracks changes no decision", () => {
  const bundled = bundledPolicyContext("gcloud");

  it("file_writes: every listed writer, one row per track, decides as with the folded table", () => {
    const listed = writeRows();
    expect(listed.length).toBe(bundled.grammar.fileWrites?.length);
    const unfolded = { ...bundled, grammar: { ...bundled.grammar, fileWrites: listed } };
    expect(listed.length).toBeGreaterThan(500);
    expect(differing(unfolded, bundled, listed)).toEqual([]);
  });

  it.skipIf(!existsSync(PYTHON))("file_reads: every row gcloud_file_reads.py lists, one per track, decides as with the folded table", () => {
    const run = spawnSync(PYTHON, [at("scripts/providers/gcloud_file_reads.py"), "--print"], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const listed = run.stdout.split("\n").filter(Boolean).map(readRow);
    expect(listed.length).toBe(bundled.grammar.fileReads?.length);
    const unfolded = { ...bundled, grammar: { ...bundled.grammar, fileReads: listed } };
    expect(listed.length).toBeGreaterThan(1600);
    expect(differing(unfolded, bundled, listed)).toEqual([]);
  });
});
