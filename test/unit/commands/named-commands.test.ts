/**
 * Every message, help text and provider file that tells the operator to run
 * `torii <command> …` names a command that exists in the operator's program
 * (src/commands/program.ts), down to the subcommand; so does every mention in
 * README.md and docs/.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../../src/commands/program.js";

const repo = fileURLToPath(new URL("../../..", import.meta.url));
/** Prose in comments and messages where "torii" is a noun, not a command line. */
const PROSE = new Set(["process", "serves", "and", "is", "the", "server", "binary"]);
/** Built into commander or cli.ts rather than declared as a command. */
const BUILT_IN = new Set(["help", "mcp"]);

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function mentions(): { file: string; words: string[] }[] {
  const files = [
    ...filesUnder(path.join(repo, "src"), ".ts"),
    ...filesUnder(path.join(repo, "providers"), ".yaml"),
    path.join(repo, "rules.example.yaml"),
    // The operator's documentation names commands too: the README's quick start and docs/.
    path.join(repo, "README.md"),
    ...filesUnder(path.join(repo, "docs"), ".md"),
  ];
  const found: { file: string; words: string[] }[] = [];
  for (const file of files) {
    for (const match of readFileSync(file, "utf8").matchAll(/\btorii ([a-z][a-z-]*)(?: ([a-z][a-z-]*))?/gu)) {
      const words = [match[1] ?? "", ...(match[2] === undefined ? [] : [match[2]])];
      if (!PROSE.has(words[0] ?? "")) found.push({ file: path.relative(repo, file), words });
    }
  }
  return found;
}

function sub(command: Command, name: string): Command | undefined {
  return command.commands.find((candidate) => candidate.name() === name);
}

describe("messages name commands that exist", () => {
  const program = buildProgram("0.0.0", undefined, () => undefined);
  const found = mentions();

  it("finds the mentions it checks", () => {
    expect(found.length).toBeGreaterThan(20);
  });

  it("every `torii <command> [<subcommand>]` is declared", () => {
    const missing: string[] = [];
    for (const { file, words } of found) {
      const [first = "", second] = words;
      if (BUILT_IN.has(first)) continue;
      const group = sub(program, first);
      if (group === undefined) missing.push(`${file}: torii ${first}`);
      else if (second !== undefined && group.commands.length > 0 && sub(group, second) === undefined && second !== "help")
        missing.push(`${file}: torii ${first} ${second}`);
    }
    expect(missing).toEqual([]);
  });
});
