/**
 * Calls that make the CLI write a local file at a path the caller picks.
 *
 * An AWS streaming read (`iot-data get-thing-shadow --thing-name t ~/.aws/credentials`)
 * writes its response over any file the agent names; the next run's credential
 * process then executes what was planted. Torii cannot tell which body token is
 * the path (only the CLI knows its options' arity), so the grammar lists the
 * commands that write (`argv.file_writes`) and a broad accept rule (a regex, or a
 * literal shorter than the command path) never accepts them: only a rule that
 * names the command path does (or the exact rule Always allow writes for one
 * call), so an operator accepts a file write knowingly.
 *
 * A CLI that runs plugins (`kubectl foo` runs `kubectl-foo` from PATH, `kubectl
 * create foo` runs `kubectl-create-foo`) runs a program Torii knows nothing
 * about, which may write any file: such a call is treated alike, its command
 * path being the known words and the plugin's word.
 */
import type { CompiledRule } from "./compile.js";
import { exactRuleTexts } from "./exact-pattern.js";
import { commandWordsOf, runsCommandPath } from "./grammar/command-path.js";
import { bodyOption } from "./grammar/body-option.js";
import { findScope, type CompiledGrammar } from "./grammar/option-table.js";
import { rowsStartingWith } from "./grammar/rows-by-leading-words.js";
import type { FileWriteSpec } from "./grammar/types.js";

/** A call that runs a plugin program: `command` is the known command path and the plugin's word. */
export interface PluginRun {
  readonly command: readonly string[];
  readonly plugin: true;
}

/** What makes a call write a local file: a listed argument, or a plugin. */
export type LocalWrite = FileWriteSpec | PluginRun;

/** A call in canonical form, as far as file writes go. */
export interface WriteCandidate {
  readonly positionals: readonly string[];
  /** Canonical options (`--long` or `--long=value`). */
  readonly options: readonly string[];
}

function startsWith(tokens: readonly string[], path: readonly string[]): boolean {
  return path.length <= tokens.length && path.every((word, i) => tokens[i] === word);
}

/**
 * The local file write this call makes, if any: a listed argument, or a plugin
 * program. `call.positionals` is the canonical command path and body (tail
 * included, commandBody). The command path is also read from the body's words
 * that are not options, as argparse's sub-command parsers take them
 * (`iot-data --thing-name=t get-thing-shadow /x` is `iot-data get-thing-shadow`),
 * and a writing option counts wherever it stands, in any spelling argparse reads
 * (body-option.ts: a long prefix, `=value`, a short glued to its value or ending
 * a cluster of switches, `-rd PATH`), or among the canonical options.
 */
export function localFileWrite(grammar: CompiledGrammar, call: WriteCandidate): LocalWrite | undefined {
  const words = commandWords(grammar, call);
  const listed = rowsStartingWith(grammar.fileWrites, [call.positionals, words]).find((write) => {
    if (!runsCommand(call, words, write.command)) return false;
    if (write.option === undefined) return true;
    const { option, short } = write;
    const names = short === undefined ? [option] : [option, short];
    return call.positionals.some((token) => bodyOption(token, names) !== undefined) || call.options.some((token) => token.split("=")[0] === option);
  });
  return listed ?? (grammar.plugins ? pluginRun(grammar, call.positionals) : undefined);
}

/**
 * The body's words that are not options (nor values of a parent command's
 * options the grammar knows, grammar/command-path.ts), from which argparse's
 * sub-command parsers also read the command path.
 */
export function commandWords(grammar: CompiledGrammar, call: WriteCandidate): readonly string[] {
  return commandWordsOf(call.positionals, grammar.parentOptions);
}

/**
 * Whether the call runs `command`: its canonical positionals start with the
 * path, or its non-option words run it (a sub-command may follow its parent's
 * options and their values, grammar/command-path.ts).
 */
export function runsCommand(call: WriteCandidate, words: readonly string[], command: readonly string[]): boolean {
  return startsWith(call.positionals, command) || runsCommandPath(words, command);
}

/**
 * The plugin a call runs: its first word names no command, or the word after a
 * command group (a command with sub-commands) names none of them. kubectl then
 * looks for `kubectl-<words>` on PATH (for `create`; other groups refuse the
 * word, which costs nothing to treat alike).
 */
function pluginRun(grammar: CompiledGrammar, positionals: readonly string[]): PluginRun | undefined {
  const first = positionals[0];
  // Without a command table no word is known to be a command: nothing is read as a plugin.
  if (first === undefined || grammar.scopes.length === 0) return undefined;
  const scope = findScope(grammar, positionals);
  if (scope === undefined) return { command: [first], plugin: true };
  const next = positionals[scope.path.length];
  if (next === undefined) return undefined;
  const isGroup = grammar.scopes.some((other) => other.path.length === scope.path.length + 1 && startsWith(other.path, scope.path));
  return isGroup ? { command: [...scope.path, next], plugin: true } : undefined;
}

/**
 * Whether an accept rule names the writing command: a literal rule whose
 * command path covers the command's, or an exact rule (the approval page's
 * Always allow, exact-pattern.ts) each of whose whole calls does.
 */
export function namesFileWrite(rule: CompiledRule, write: LocalWrite): boolean {
  if (rule.kind === "literal") return commandPathCovers(rule.canonical.positionals, write);
  const texts = exactRuleTexts(rule.ref.text);
  return texts !== undefined && texts.every((text) => commandPathCovers(text.split(" "), write));
}

/** Whether the words before the first option start with the writing command's path. */
function commandPathCovers(positionals: readonly string[], write: LocalWrite): boolean {
  const end = positionals.findIndex((token) => token.startsWith("-"));
  return startsWith(end === -1 ? positionals : positionals.slice(0, end), write.command);
}

/**
 * Why a file write is left for a decision. No option value or path is quoted
 * (it may be a secret), nor a plugin's word (the agent's): only table words.
 */
export function fileWriteReason(tool: string, write: LocalWrite): string {
  if ("plugin" in write) {
    const known = write.command.slice(0, -1).join(" ");
    const where = known === "" ? "its first word names no command" : `the word after "${known}" names no sub-command`;
    return (
      `${tool}: ${where} of the provider's table, so ${tool} would run a plugin program from PATH, which may write local files or do anything else; ` +
      "only an accept rule that names the command word accepts it, so a grant or the operator's approval is needed"
    );
  }
  const path = write.command.join(" ");
  const rule = `only an accept rule that names "${path}" accepts it, so a grant or the operator's approval is needed`;
  if (write.defaultPath !== undefined) {
    const when = write.option === undefined ? "" : ` when given ${write.option}`;
    return `${tool} ${path} writes a local file at its default place, ${write.defaultPath}${when}, unless an argument names another; ${rule}`;
  }
  const argument = write.option ?? `its ${write.operand ?? "outfile"} operand`;
  return `${tool} ${path} can write a local file at the path given by ${argument}; ${rule}`;
}
