/**
 * The gate for Windows batch wrappers (`az.cmd`, `gcloud.cmd`, pip's `aws.cmd`).
 *
 * cmd.exe re-parses the command line of a `.bat`/`.cmd` file: `&`, `|`, `<`,
 * `>` start new commands or redirections, `%VAR%` (and `!VAR!` under delayed
 * expansion) expand even inside quotes, `^` escapes, and the wrapper's own
 * `%*` re-expands whatever it was given ("BatBadBut", CVE-2024-24576,
 * CVE-2024-27980). Escaping has a long record of bypasses, so Torii does not
 * escape: when a provider opts in to a batch wrapper, each argument must come
 * from a small set of characters cmd.exe gives no meaning to, and anything else
 * is refused before a process is started.
 *
 * Pure string checks; runs the same on every platform.
 */

/**
 * The outcome of a check. `reason` names the offending character class, never
 * the whole value; for a single argument it reads as a predicate ("contains %,
 * …"), for a launch it names the argument ("argument 2 contains %, …").
 */
export type BatchCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** How to start a batch file through cmd.exe once every check passed. */
export interface BatchLaunchPlan {
  readonly ok: true;
  /** The absolute path of cmd.exe. */
  readonly executable: string;
  readonly args: readonly string[];
  /** Node must pass `args` to CreateProcess as written (they are already one cmd.exe command line). */
  readonly windowsVerbatimArguments: true;
}

const BATCH_SAFE_CHARACTER = /[A-Za-z0-9\-_.,:/=@+]/u;
const OK: BatchCheck = { ok: true };

/**
 * Accepts an argument only when it is non-empty and made of
 * `[A-Za-z0-9-_.,:/=@+]`. Everything else (cmd.exe metacharacters, quotes,
 * `%`, `!`, `^`, whitespace, CR, LF, backslashes, non-ASCII) is refused.
 */
export function classifyBatchArgument(argument: string): BatchCheck {
  if (argument === "") return refuse("is empty, which a batch file cannot receive as one argument");
  for (const character of argument) {
    if (!BATCH_SAFE_CHARACTER.test(character)) return refuse(describeUnsafe(character));
  }
  return OK;
}

/**
 * Checks a whole batch launch: the script path (absolute `.bat`/`.cmd`, no
 * `"`, no `%`, no control characters, not ending in `\`) and every argument.
 */
export function checkBatchLaunch(scriptPath: string, args: readonly string[]): BatchCheck {
  const script = checkScriptPath(scriptPath);
  if (!script.ok) return script;
  for (const [index, argument] of args.entries()) {
    const verdict = classifyBatchArgument(argument);
    if (!verdict.ok) return refuse(`argument ${index + 1} ${verdict.reason}`);
  }
  return OK;
}

/**
 * Builds the cmd.exe invocation for a checked batch launch, or returns the
 * refusal. The line is `cmd.exe /d /e:ON /v:OFF /s /c ""script" arg…"`:
 * `/d` skips AutoRun commands from the registry, `/v:OFF` keeps `!` literal,
 * `/s` strips exactly the outer pair of quotes. Because every argument is in
 * the safe set, the line needs no escaping at all.
 */
export function planBatchLaunch(cmdExe: string, scriptPath: string, args: readonly string[]): BatchLaunchPlan | BatchCheck {
  // Node does not quote the program's own name when the arguments are verbatim: the path heads the command
  // line cmd.exe parses as written, so it may hold no whitespace and nothing cmd.exe gives a meaning to.
  if (!/^[A-Za-z]:\\[A-Za-z0-9\\_.-]+$/u.test(cmdExe)) {
    return refuse("cmd.exe must be given as a plain absolute path (letters, digits, \\ _ . - only)");
  }
  const verdict = checkBatchLaunch(scriptPath, args);
  if (!verdict.ok) return verdict;
  const line = [`"${scriptPath}"`, ...args].join(" ");
  return { ok: true, executable: cmdExe, args: ["/d", "/e:ON", "/v:OFF", "/s", "/c", `"${line}"`], windowsVerbatimArguments: true };
}

function checkScriptPath(scriptPath: string): BatchCheck {
  if (!/^(?:[A-Za-z]:\\|\\\\[^\\?.])/u.test(scriptPath)) return refuse("script path must be absolute");
  if (scriptPath.includes('"')) return refuse('script path contains ", which would end its quoting');
  if (scriptPath.endsWith("\\")) return refuse("script path ends in \\, which would escape its closing quote");
  if (scriptPath.includes("%")) return refuse("script path contains %, which cmd.exe expands even inside quotes");
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/u.test(scriptPath)) return refuse("script path contains a control character");
  if (!/\.(?:bat|cmd)$/iu.test(scriptPath)) return refuse("script path is not a .bat or .cmd file");
  return OK;
}

function describeUnsafe(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  if (character === "\r" || character === "\n") return "contains a line break, which ends the cmd.exe command";
  if (character === "%" || character === "!") return `contains ${character}, which cmd.exe expands as a variable`;
  if ("&|<>()^".includes(character)) return `contains ${character}, a cmd.exe operator`;
  if (character === '"') return 'contains ", which changes cmd.exe quoting';
  if (character === "\\") return "contains \\, which can escape a closing quote";
  if (/\s/u.test(character)) return "contains whitespace, which splits batch arguments";
  if (code < 0x20 || code === 0x7f) return `contains the control character U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (code > 0x7f) return "contains a non-ASCII character";
  return `contains ${character}, which is outside the batch-safe set [A-Za-z0-9-_.,:/=@+]`;
}

function refuse(reason: string): BatchCheck {
  return { ok: false, reason };
}
