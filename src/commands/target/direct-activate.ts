/**
 * `torii target activate <tool> <name> [--for <minutes>] [--add] [--json]`
 * without commander and the operator program: the operator's most frequent
 * command, run by src/cli.ts from a build of its own (scripts/bundle.mjs: one
 * file instead of some thirty shared chunks, each a module load).
 *
 * Only argv of that plain shape is taken: each option at most once, `--for`'s
 * value whole digits, exactly two words that are not options. Anything else
 * (help, a typo, a repeated or unknown option, `--`) returns undefined and
 * cli.ts runs the operator program, whose commander answers it as before; the
 * work itself is runTargetActivate in both cases, and the errors are reported
 * by the same reportFailure.
 */
import { reportFailure } from "../shared/operator-context.js";
import { runTargetActivate, type TargetActivateOptions } from "./target-leases.js";

/** The words of a plain `target activate` command line. */
export interface DirectActivate {
  readonly tool: string;
  readonly name: string;
  readonly options: TargetActivateOptions;
}

const WHOLE_NUMBER = /^[0-9]+$/u;

/** `args` (after the binary) read as a plain `target activate`, or undefined for anything commander must answer. */
export function directActivateArgs(args: readonly string[]): DirectActivate | undefined {
  if (args[0] !== "target" || args[1] !== "activate") return undefined;
  const words: string[] = [];
  const options: { for?: string; add?: boolean; json?: boolean } = {};
  const rest = args.slice(2);
  while (rest.length > 0) {
    const token = rest.shift() ?? "";
    const flag = token === "--add" ? "add" : token === "--json" ? "json" : undefined;
    const minutes = token === "--for" ? rest.shift() : token.startsWith("--for=") ? token.slice("--for=".length) : undefined;
    if (!token.startsWith("-")) words.push(token);
    else if (flag !== undefined && options[flag] === undefined) options[flag] = true;
    else if (minutes !== undefined && options.for === undefined && WHOLE_NUMBER.test(minutes)) options.for = minutes;
    else return undefined;
  }
  const [tool, name] = words;
  if (words.length !== 2 || tool === undefined || name === undefined) return undefined;
  return { tool, name, options };
}

/** Runs a plain `target activate` and resolves to the exit code; undefined when `args` is not one (commander's turn). */
export async function runDirectActivate(args: readonly string[]): Promise<number | undefined> {
  const direct = directActivateArgs(args);
  if (direct === undefined) return undefined;
  try {
    return await runTargetActivate(direct.tool, direct.name, direct.options);
  } catch (error) {
    return reportFailure(error);
  }
}
