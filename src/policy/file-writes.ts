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
 */
import type { CompiledRule } from "./compile.js";
import { exactRuleTexts } from "./exact-pattern.js";
import type { FileWriteSpec } from "./grammar/types.js";

function startsWith(tokens: readonly string[], path: readonly string[]): boolean {
  return path.length <= tokens.length && path.every((word, i) => tokens[i] === word);
}

/** An argparse body option, its `=value` form, or an abbreviation of it (the CLI expands those). */
function givesOption(token: string, option: string): boolean {
  const name = token.split("=")[0] as string;
  return name === option || (name.startsWith("--") && name.length >= 3 && option.startsWith(name));
}

/**
 * The listed file write this call makes, if any (`positionals`: the canonical
 * command path and body). The command path is also read from the body's words
 * that are not options, as argparse's sub-command parsers take them
 * (`iot-data --thing-name=t get-thing-shadow /x` is `iot-data get-thing-shadow`),
 * and a writing option counts wherever it stands.
 */
export function localFileWrite(writes: readonly FileWriteSpec[], positionals: readonly string[]): FileWriteSpec | undefined {
  const words = positionals.filter((token) => !token.startsWith("-") || token === "-");
  return writes.find((write) => {
    if (!startsWith(positionals, write.command) && !startsWith(words, write.command)) return false;
    if (write.option === undefined) return true;
    const option = write.option;
    return positionals.some((token) => givesOption(token, option));
  });
}

/**
 * Whether an accept rule names the writing command: a literal rule whose
 * command path covers the command's, or an exact rule (the approval page's
 * Always allow, exact-pattern.ts) each of whose whole calls does.
 */
export function namesFileWrite(rule: CompiledRule, write: FileWriteSpec): boolean {
  if (rule.kind === "literal") return commandPathCovers(rule.canonical.positionals, write);
  const texts = exactRuleTexts(rule.ref.text);
  return texts !== undefined && texts.every((text) => commandPathCovers(text.split(" "), write));
}

/** Whether the words before the first option start with the writing command's path. */
function commandPathCovers(positionals: readonly string[], write: FileWriteSpec): boolean {
  const end = positionals.findIndex((token) => token.startsWith("-"));
  return startsWith(end === -1 ? positionals : positionals.slice(0, end), write.command);
}

/** Why a listed file write is left for a decision (no option value or path is quoted: it may be a secret). */
export function fileWriteReason(tool: string, write: FileWriteSpec): string {
  const path = write.command.join(" ");
  const argument = write.option ?? `its ${write.operand ?? "outfile"} operand`;
  return (
    `${tool} ${path} can write a local file at the path given by ${argument}; ` +
    `only an accept rule that names "${path}" accepts it, so a grant or the operator's approval is needed`
  );
}
