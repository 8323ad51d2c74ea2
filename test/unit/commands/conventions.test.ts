/**
 * Conventions across every operator command (docs/cli.md "Conventions"):
 * `--help` works at every level and exits 0, every command that prints a
 * result offers `--json`, and every command is documented in docs/cli.md
 * (where the exit codes are).
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../../src/commands/program.js";
import { runCli } from "../../support/run-cli.js";

/** Commands whose output is JSON already, or a client's hook protocol (`guard`). */
const NO_JSON_FLAG = new Set(["policy check", "guard"]);

function leaves(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => (sub.commands.length === 0 ? [[...prefix, sub.name()]] : leaves(sub, [...prefix, sub.name()])));
}

function find(program: Command, words: readonly string[]): Command {
  return words.reduce((command, word) => command.commands.find((sub) => sub.name() === word) ?? command, program);
}

const program = buildProgram("0.0.0", undefined, () => undefined);
const commands = leaves(program);
const CLI_DOC = readFileSync(new URL("../../../docs/cli.md", import.meta.url), "utf8");

describe("operator CLI conventions", () => {
  it.each(commands.map((words) => [words.join(" ")]))("%s offers --json", (name) => {
    if (NO_JSON_FLAG.has(name)) return;
    expect(find(program, name.split(" ")).options.map((option) => option.long)).toContain("--json");
  });

  it.each(commands.map((words) => [words.join(" ")]))("torii %s is documented in docs/cli.md", (name) => {
    const words = name.split(" ");
    const last = words.at(-1) ?? "";
    // `torii agent install\|uninstall …` documents both in one row.
    const spelled = new RegExp(
      `\`torii ${words
        .slice(0, -1)
        .map((word) => `${word} `)
        .join("")}([a-z-]+\\\\\\|)*${last}\\b`,
      "u",
    );
    expect(CLI_DOC).toMatch(spelled);
  });

  it("every level answers --help with exit 0", async () => {
    const groups = [...new Set(commands.map((words) => words.slice(0, -1).join(" ")).filter((group) => group !== ""))];
    for (const words of [[], ...groups.map((group) => group.split(" ")), ...commands]) {
      const result = await runCli([...words, "--help"]);
      expect(result.status, words.join(" ")).toBe(0);
      expect(result.stdout, words.join(" ")).toContain("Usage: torii");
    }
  });
});
