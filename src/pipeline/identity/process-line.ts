/**
 * Reading a profile's `credential_process` line the way the programs that run
 * it do, to tell whether it runs a program from the working directory (the
 * agent's project). The SDK hands the line to `/bin/sh -c`; the AWS CLI splits
 * it with Python's `shlex.split` (POSIX mode) and runs the argument vector.
 * Both join quoted and unquoted text that touch (`"x"/creds` is `x/creds`),
 * both take a backslash as an escape, and neither splits on what JavaScript's
 * `\s` also matches (U+00A0 and the other Unicode spaces): reading the first
 * word any other way lets a relative program pass as a bare name.
 */
import path from "node:path";

/** shlex's separators (`shlex.whitespace`); sh splits on the same minus `\r`. */
const SHLEX_SEPARATORS = " \t\r\n";
const SH_SEPARATORS = " \t\n";

/**
 * Characters that make `/bin/sh` run something else than the first word, or
 * the first word from elsewhere: a second command (`;`, `&`, `|`, a line
 * break), a substitution (`$`, a backquote), a redirection or subshell. The
 * CLI reads them as plain text, the SDK's shell does not: a line holding one
 * anywhere, even quoted, is refused rather than parsed as a shell would.
 */
const SHELL_SYNTAX = /[;&|<>()$`\r\n]/u;

/**
 * The words of `line` split POSIX-shlex style with `separators`, or undefined
 * where shlex raises (an unclosed quote, a trailing backslash). Outside quotes
 * a backslash escapes any character; inside double quotes only `"` and `\`
 * (shlex's `escapedquotes`), elsewhere it stays; single quotes escape nothing.
 */
export function shlexWords(line: string, separators: string = SHLEX_SEPARATORS): string[] | undefined {
  const words: string[] = [];
  let index = 0;
  for (;;) {
    while (index < line.length && separators.includes(line[index] ?? "")) index += 1;
    if (index >= line.length) return words;
    let word = "";
    while (index < line.length) {
      const char = line[index] ?? "";
      if (separators.includes(char)) break;
      if (char === "\\") {
        if (index + 1 >= line.length) return undefined;
        word += line[index + 1] ?? "";
        index += 2;
      } else if (char === "'") {
        const close = line.indexOf("'", index + 1);
        if (close === -1) return undefined;
        word += line.slice(index + 1, close);
        index = close + 1;
      } else if (char === '"') {
        index += 1;
        let closed = false;
        while (index < line.length) {
          const inner = line[index] ?? "";
          if (inner === '"') {
            closed = true;
            index += 1;
            break;
          }
          if (inner === "\\" && (line[index + 1] === '"' || line[index + 1] === "\\")) {
            word += line[index + 1] ?? "";
            index += 2;
          } else {
            word += inner;
            index += 1;
          }
        }
        if (!closed) return undefined;
      } else {
        word += char;
        index += 1;
      }
    }
    words.push(word);
  }
}

/** The first word of `line` as shlexWords splits it ("" for a line of separators only), or undefined where shlex raises. */
export function firstWord(line: string, separators: string = SHLEX_SEPARATORS): string | undefined {
  const words = shlexWords(line, separators);
  return words === undefined ? undefined : (words[0] ?? "");
}

/** Whether a program word is resolved against the working directory, or cannot be told. */
function programIsRelative(program: string | undefined): boolean {
  if (program === undefined || program === "") return true;
  // `~` expands only in the SDK's shell (the CLI runs `~/x` relative); `$`/backquote only there; `=` makes an assignment.
  if (program.startsWith("~") || /[$`=]/u.test(program)) return true;
  return program.includes("/") && !program.startsWith("/");
}

/**
 * Whether the line may run a program from the working directory under either
 * reader: a first word holding a `/` without being absolute, starting with
 * `~`, empty or unparseable, or shell syntax anywhere. A bare name is looked
 * up through the child's PATH (child-env.ts), both by the CLI and by the
 * account check's runner (process-runner.ts), so neither ever searches an
 * empty or `.` entry.
 */
export function processLineRunsFromWorkingDirectory(line: string, platform: NodeJS.Platform = process.platform): boolean {
  if (SHELL_SYNTAX.test(line)) return true;
  if (platform === "win32" && windowsProgramIsRelative(line)) return true;
  return programIsRelative(firstWord(line, SHLEX_SEPARATORS)) || programIsRelative(firstWord(line, SH_SEPARATORS));
}

/**
 * On Windows (cmd.exe for the SDK, botocore's Windows splitter for the CLI) a
 * backslash separates directories and escapes nothing: the first word, with
 * double quotes joined to the text beside them, names a relative path when it
 * holds either slash without being absolute (`bin\creds`, `C:creds`).
 */
function windowsProgramIsRelative(line: string): boolean {
  // cmd.exe separates words by spaces and tabs only.
  const program = (line.replace(/^[ \t]+/u, "").match(/^(?:"[^"]*"?|[^ \t"]+)+/u)?.[0] ?? "").replaceAll('"', "");
  if (program === "" || /^[A-Za-z]:(?![\\/])/u.test(program)) return true;
  return /[\\/]/u.test(program) && !path.win32.isAbsolute(program);
}
