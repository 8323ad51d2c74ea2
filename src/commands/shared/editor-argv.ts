/**
 * The operator's editor as an argv, from `$VISUAL` or `$EDITOR`, without a
 * shell: the value is split into words the way a POSIX shell splits a simple
 * command, and nothing more. Whitespace separates words; single quotes keep
 * everything literally; double quotes keep whitespace, with `\"` and `\\`
 * escaped; a backslash outside quotes escapes the next character. There is no
 * variable, `~`, glob or command expansion, and `;`, `|`, `&`, `>` are plain
 * characters. So `code --wait`, `"/opt/My Editor/bin/edit" -w` and
 * `vim -c 'set ft=yaml'` work; `$HOME/bin/ed` does not (write the path out).
 * The file to edit is appended as the last argument.
 */
import { OperatorError } from "./operator-context.js";

/** The editor command line: `$VISUAL`, else `$EDITOR`; undefined when neither is set (or both are blank). */
export function editorCommandLine(env: NodeJS.ProcessEnv): string | undefined {
  for (const name of ["VISUAL", "EDITOR"] as const) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") return value;
  }
  return undefined;
}

/**
 * Splits an editor command line into argv words (see the module comment).
 *
 * @throws OperatorError for an unterminated quote or a trailing backslash.
 */
export function splitEditorCommand(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index += 1) {
    const char = line.charAt(index);
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && (line[index + 1] === '"' || line[index + 1] === "\\")) word += line.charAt(++index);
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === "\\") {
      if (index + 1 >= line.length) throw new OperatorError("the editor command ($VISUAL or $EDITOR) ends with a lone backslash");
      word += line.charAt(++index);
      inWord = true;
    } else if (/\s/u.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new OperatorError(`the editor command ($VISUAL or $EDITOR) has an unterminated ${quote} quote`);
  if (inWord) words.push(word);
  return words;
}
