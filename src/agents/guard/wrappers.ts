/**
 * Programs that run another program given in their own arguments (`env`,
 * `sudo`, `timeout`, `xargs`, `find -exec`, `bash -c`, …): what each would run,
 * found by skipping its options the way it parses them. A wrapper not listed
 * here is treated as an ordinary program (a documented limit of the guard).
 */
import { readShellCommands } from "./shell-reader.js";
import { ShellParseError, type CommandInput, type ShellWord, type SimpleCommand } from "./shell-words.js";

/** What a wrapper runs: the commands to inspect next, or a reason the guard cannot tell. */
export type Unwrapped = { readonly commands: readonly SimpleCommand[] } | { readonly unreadable: string };

interface OptionGrammar {
  /** Short options that take the next word as their value (`-u root`). */
  readonly short: string;
  /** Long options that take the next word as their value (`--user root`); `--user=root` never does. */
  readonly long: readonly string[];
}

const NONE: OptionGrammar = { short: "", long: [] };
/** Each wrapper's options that take a value, and how many operands precede the command it runs. */
const PREFIX_WRAPPERS: Readonly<Record<string, { readonly options: OptionGrammar; readonly operands?: number; readonly assignments?: boolean }>> = {
  env: { options: { short: "uCSP", long: ["--unset", "--chdir", "--split-string"] }, assignments: true },
  sudo: {
    options: {
      short: "CDghpRrtTUu",
      long: ["--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type", "--command-timeout", "--other-user", "--user"],
    },
    assignments: true,
  },
  doas: { options: { short: "uC", long: [] } },
  nice: { options: { short: "n", long: ["--adjustment"] } },
  timeout: { options: { short: "sk", long: ["--signal", "--kill-after"] }, operands: 1 },
  nohup: { options: NONE },
  setsid: { options: NONE },
  time: { options: { short: "fo", long: ["--format", "--output"] } },
  stdbuf: { options: { short: "ioe", long: ["--input", "--output", "--error"] } },
  ionice: { options: { short: "cnp", long: ["--class", "--classdata", "--pid"] } },
  exec: { options: { short: "a", long: [] } },
  builtin: { options: NONE },
  command: { options: NONE },
  xargs: {
    options: {
      short: "adEILnPs",
      long: ["--arg-file", "--delimiter", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--replace", "--process-slot-var"],
    },
  },
  watch: { options: { short: "n", long: ["--interval"] } },
};

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "busybox-sh"]);
const SHELL_OPTIONS_WITH_VALUE: OptionGrammar = { short: "oO", long: ["--rcfile", "--init-file"] };

/**
 * What `program` (a normalised name) would run when called with `args`, or
 * undefined when it runs nothing the guard looks into.
 */
export function unwrap(program: string, args: readonly ShellWord[], input: CommandInput): Unwrapped | undefined {
  if (SHELLS.has(program)) return unwrapShell(args, input);
  if (program === "eval") return script(args.map((word) => word.text).join(" "), input);
  if (program === "find") return unwrapFind(args);
  if (program === "su" || program === "runuser") return unwrapSu(args, input);
  const wrapper = PREFIX_WRAPPERS[program];
  if (wrapper === undefined) return undefined;
  let at = skipOptions(args, wrapper.options);
  const options = args.slice(0, at).map((word) => word.text);
  if (program === "command" && options.some((option) => /^-[a-zA-Z]*[vV]/u.test(option))) return undefined; // a lookup, not a run
  // sudo -s/-i hands the command to the user's shell as one string.
  const viaShell = program === "sudo" && options.some((option) => /^-[a-zA-Z]*[si]|^--(shell|login)$/u.test(option));
  if (viaShell && at < args.length)
    return script(
      args
        .slice(at)
        .map((word) => word.text)
        .join(" "),
      input,
    );
  if (program === "env") {
    const split = splitStringOf(args.slice(0, at));
    if (split !== undefined) return script([split, ...args.slice(at).map((word) => word.text)].join(" "), input);
  }
  if (wrapper.assignments === true) while (at < args.length && args[at]?.text.includes("=") === true) at += 1;
  at += wrapper.operands ?? 0;
  const rest = args.slice(at);
  if (rest.length === 0) return { commands: [] };
  // watch hands a single operand to `sh -c`.
  if (program === "watch" && rest.length === 1) return script(rest[0]?.text ?? "", undefined);
  return { commands: [{ words: [...rest], input }] };
}

/** The index of the first operand of `args`, options (and their values) skipped. */
export function skipOptions(args: readonly ShellWord[], grammar: OptionGrammar): number {
  let at = 0;
  while (at < args.length) {
    const word = args[at]?.text ?? "";
    if (word === "--") return at + 1;
    if (!word.startsWith("-") || word === "-") return at;
    at += 1;
    if (word.startsWith("--")) {
      if (!word.includes("=") && grammar.long.includes(word)) at += 1;
      continue;
    }
    // A short cluster (`-iu root`): the first letter that takes a value takes the rest, or the next word.
    for (let index = 1; index < word.length; index += 1) {
      if (grammar.short.includes(word[index] ?? "")) {
        if (index === word.length - 1) at += 1;
        break;
      }
    }
  }
  return at;
}

function unwrapShell(args: readonly ShellWord[], input: CommandInput): Unwrapped | undefined {
  let runsString = false;
  let at = 0;
  while (at < args.length) {
    const word = args[at]?.text ?? "";
    if (word === "--" || word === "-") {
      at += 1;
      break;
    }
    if (!/^[-+]/u.test(word)) break;
    if (/^-[A-Za-z]*c/u.test(word) && !word.startsWith("--")) runsString = true;
    at = at + 1 + (optionTakesValue(word) ? 1 : 0);
  }
  const operand = args[at];
  if (runsString) return operand === undefined ? { unreadable: "a shell's -c has no command string" } : script(operand.text, undefined);
  if (operand !== undefined) return undefined; // runs a script file: beyond what the guard can see
  if (input?.kind === "pipe") return { unreadable: "a shell reading its commands from a pipe runs text the guard cannot see" };
  if (input?.kind === "text") return script(input.text, undefined);
  return undefined;
}

function optionTakesValue(word: string): boolean {
  if (word.startsWith("--")) return SHELL_OPTIONS_WITH_VALUE.long.includes(word);
  return word.length === 2 && SHELL_OPTIONS_WITH_VALUE.short.includes(word[1] ?? "");
}

/** `su [options] [user] -c 'command'` (and runuser): the command string runs through the user's shell. */
function unwrapSu(args: readonly ShellWord[], input: CommandInput): Unwrapped | undefined {
  for (let at = 0; at < args.length; at += 1) {
    const word = args[at]?.text ?? "";
    if (word === "-c" || word === "--command") return script(args[at + 1]?.text ?? "", input);
    if (word.startsWith("--command=")) return script(word.slice("--command=".length), input);
    if (/^-[^-]*c./u.test(word)) return script(word.slice(word.indexOf("c") + 1), input);
  }
  return undefined;
}

/** `find … -exec cmd {} ;` (and -execdir, -ok, -okdir): each command it would run. */
function unwrapFind(args: readonly ShellWord[]): Unwrapped {
  const commands: SimpleCommand[] = [];
  for (let at = 0; at < args.length; at += 1) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[at]?.text ?? "")) continue;
    const words: ShellWord[] = [];
    for (at += 1; at < args.length && args[at]?.text !== ";" && args[at]?.text !== "+"; at += 1) words.push(args[at] as ShellWord);
    commands.push({ words, input: undefined });
  }
  return { commands };
}

function splitStringOf(options: readonly ShellWord[]): string | undefined {
  for (let at = 0; at < options.length; at += 1) {
    const word = options[at]?.text ?? "";
    if (word === "-S" || word === "--split-string") return options[at + 1]?.text ?? "";
    if (word.startsWith("--split-string=")) return word.slice("--split-string=".length);
    if (/^-[^-]*S./u.test(word)) return word.slice(word.indexOf("S") + 1);
  }
  return undefined;
}

/** A command string another program runs through a shell (`bash -c`, `eval`, `env -S`, `watch`). */
function script(text: string, input: CommandInput): Unwrapped {
  try {
    const commands = readShellCommands(text);
    const first = commands[0];
    if (first !== undefined && first.input === undefined) first.input = input;
    return { commands };
  } catch (error) {
    if (error instanceof ShellParseError) return { unreadable: error.message };
    throw error;
  }
}
