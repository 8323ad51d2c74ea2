/**
 * Decides whether a shell command line would run one of the CLIs Torii
 * brokers, however it is spelled or wrapped. The guarded CLIs are matched by
 * program name: the last path component, compared without case and without a
 * Windows extension (`/usr/bin/kubectl`, `./kubectl`, `KUBECTL.EXE`).
 *
 * Fail closed: a command line the reader cannot read, or whose program name is
 * computed at run time (`$K get pods`, `kub*`), is reported as unreadable and
 * blocked; the reason tells the agent what to change.
 */
import { readShellCommands } from "./shell-reader.js";
import { isComputed, ShellParseError, type CommandInput, type ShellWord, type SimpleCommand } from "./shell-words.js";
import { unwrap } from "./wrappers.js";

/** One CLI the guard keeps the agent from running directly. */
export interface GuardedCli {
  /** The provider's `command` as configured. */
  readonly command: string;
  /** The MCP tool that runs it through the policy (empty for Torii's own operator CLI). */
  readonly tool: string;
  /** Torii's own operator CLI: the human's, with no MCP tool that stands in for it. */
  readonly operatorOnly?: true;
}

export type GuardFinding =
  { readonly kind: "guarded-cli"; readonly cli: GuardedCli; readonly program: string } | { readonly kind: "unreadable"; readonly reason: string };

/** Reserved words that may precede a command without changing which program runs. */
const TRANSPARENT = new Set(["!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "esac", "coproc", "time"]);
/** Reserved words after which the rest of the simple command runs nothing. */
const INERT = new Set(["for", "select", "[[", "function", "in"]);
/** Wrappers nest; deeper than this is refused rather than followed further. */
const MAX_UNWRAP = 16;

/** The name a program is matched by: last path component, lower case, Windows extension removed. */
export function programKey(name: string): string {
  const base = name.split(/[\\/]/u).pop() ?? name;
  return base.toLowerCase().replace(/\.(exe|cmd|bat|com|ps1)$/u, "");
}

/**
 * The first guarded CLI `commandLine` would run, or why it cannot be read.
 *
 * @param guarded the guarded CLIs by programKey of their command.
 * @returns undefined when the line runs none of them, as far as the guard can see.
 */
export function findGuardedUse(commandLine: string, guarded: ReadonlyMap<string, GuardedCli>): GuardFinding | undefined {
  let commands: SimpleCommand[];
  try {
    commands = readShellCommands(commandLine);
  } catch (error) {
    if (error instanceof ShellParseError) return { kind: "unreadable", reason: error.message };
    throw error;
  }
  for (const command of commands) {
    const finding = inspect(command.words, command.input, guarded, 0);
    if (finding !== undefined) return finding;
  }
  return undefined;
}

function inspect(words: readonly ShellWord[], input: CommandInput, guarded: ReadonlyMap<string, GuardedCli>, depth: number): GuardFinding | undefined {
  if (depth > MAX_UNWRAP) return { kind: "unreadable", reason: "the command wraps programs in programs too deeply" };
  let at = 0;
  for (; at < words.length; at += 1) {
    const word = words[at] as ShellWord;
    if (word.assignment) continue;
    if (word.quoted) break;
    if (word.text === "case") return { kind: "unreadable", reason: "case statements are not read" };
    if (INERT.has(word.text)) return undefined;
    if (TRANSPARENT.has(word.text)) continue;
    if (word.text === "-p" && words[at - 1]?.text === "time") continue;
    break;
  }
  const name = words[at];
  if (name === undefined) return undefined;
  if (isComputed(name) || name.glob) {
    return { kind: "unreadable", reason: `the program name ${JSON.stringify(name.text.replaceAll("\u0000", "$…"))} is computed when the shell runs it` };
  }
  const program = programKey(name.text);
  const cli = guarded.get(program);
  if (cli !== undefined) return { kind: "guarded-cli", cli, program: name.text };
  const inner = unwrap(program, words.slice(at + 1), input);
  if (inner === undefined) return undefined;
  if ("unreadable" in inner) return { kind: "unreadable", reason: inner.unreadable };
  for (const command of inner.commands) {
    const finding = inspect(command.words, command.input, guarded, depth + 1);
    if (finding !== undefined) return finding;
  }
  return undefined;
}
