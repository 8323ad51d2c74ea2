/**
 * Reads a shell command line (bash syntax, a superset of POSIX sh) into every
 * simple command it would run: those separated by `;`, `&`, `&&`, `||`, `|`,
 * newlines, and those inside subshells `( )`, groups `{ ;}`, command and
 * process substitutions `$( )`, backticks, `<( )`, and (unquoted) here-document
 * bodies. Quote removal follows bash: `\k`, `"k"`, `k''ubectl`, `$'\x6b'` all
 * read as the letters the shell would pass.
 *
 * It is not a shell: it never expands anything. What it cannot read with
 * certainty (an unclosed quote, `case` patterns, arithmetic holding a command
 * substitution) throws ShellParseError, and the guard blocks: a reader that
 * guessed would let through exactly the spellings it guessed wrong.
 */
import { readAnsiCQuoted } from "./ansi-c-quote.js";
import { COMPUTED, ShellParseError, type ShellWord, type SimpleCommand } from "./shell-words.js";

const BLANK = new Set([" ", "\t"]);
const WORD_END = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?$/u;
const ASSIGNMENT_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/u;
/** Deeper nesting than any real command line; a bound keeps a hostile one from exhausting the stack. */
const MAX_DEPTH = 64;

interface PendingHeredoc {
  readonly command: SimpleCommand;
  readonly delimiter: string;
  readonly literal: boolean;
  readonly stripTabs: boolean;
}

/** Every simple command `source` would run, in order of appearance. @throws ShellParseError */
export function readShellCommands(source: string): SimpleCommand[] {
  const reader = new ShellReader(source);
  reader.readList(undefined, 0);
  return reader.commands;
}

class ShellReader {
  readonly commands: SimpleCommand[] = [];
  private at = 0;
  private readonly heredocs: PendingHeredoc[] = [];

  constructor(private readonly source: string) {}

  /** Reads commands until `stop` (`)` for a subshell or `$(`) or the end of the source. */
  readList(stop: ")" | undefined, depth: number): void {
    if (depth > MAX_DEPTH) throw new ShellParseError("the command nests too deeply");
    let command = this.newCommand(false);
    const finish = (piped: boolean): void => {
      command = this.newCommand(piped);
    };
    for (;;) {
      this.skipBlanks();
      const char = this.peek();
      if (char === undefined) {
        if (stop !== undefined) throw new ShellParseError("a ( or $( is not closed");
        this.readHeredocBodies();
        return;
      }
      if (char === ")") {
        if (stop === undefined) throw new ShellParseError("a ) has no matching (");
        this.at += 1;
        return;
      }
      if (char === "#" && this.atWordStart()) {
        while (this.peek() !== undefined && this.peek() !== "\n") this.at += 1;
      } else if (char === "\n") {
        this.at += 1;
        this.readHeredocBodies();
        finish(false);
      } else if (char === ";") {
        if (this.source.startsWith(";;", this.at) || this.source.startsWith(";&", this.at)) throw new ShellParseError("case statements are not read");
        this.at += 1;
        finish(false);
      } else if (char === "&" && !this.source.startsWith("&>", this.at)) {
        this.at += this.source.startsWith("&&", this.at) ? 2 : 1;
        finish(false);
      } else if (char === "|") {
        const or = this.source.startsWith("||", this.at);
        this.at += or || this.source.startsWith("|&", this.at) ? 2 : 1;
        finish(!or);
      } else if (char === "(") {
        this.readParenthesis(command, depth);
      } else if ((char === "<" || char === ">") && this.peek(1) === "(") {
        // Process substitution: its commands run; the word it becomes is computed.
        this.at += 2;
        this.readList(")", depth + 1);
        command.words.push({ text: COMPUTED, quoted: false, glob: false, assignment: false });
      } else if (this.redirectionLength() > 0) {
        this.readRedirection(command, depth);
      } else {
        command.words.push(this.readWord(depth));
      }
    }
  }

  private newCommand(piped: boolean): SimpleCommand {
    const command: SimpleCommand = { words: [], input: piped ? { kind: "pipe" } : undefined };
    this.commands.push(command);
    return command;
  }

  private readParenthesis(command: SimpleCommand, depth: number): void {
    if (this.source.startsWith("((", this.at) && command.words.length === 0) {
      this.at += 2;
      this.skipArithmetic();
      return;
    }
    if (command.words.length === 0) {
      this.at += 1;
      this.readList(")", depth + 1);
      return;
    }
    // `name ()`: a function definition; its body is read as commands (they would run when called).
    this.at += 1;
    this.skipBlanks();
    if (this.peek() !== ")") throw new ShellParseError("a ( appears in the middle of a command");
    this.at += 1;
    command.words.length = 0;
  }

  /** Length of the redirection operator at the cursor (with its file-descriptor digits), or 0. */
  private redirectionLength(): number {
    const match = /^(\d*|\{[A-Za-z_][A-Za-z0-9_]*\})(<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)|^&>>?/u.exec(this.source.slice(this.at, this.at + 40));
    if (match === null) return 0;
    // Digits count only when they start a word (`2>`), not when they end one (`a2>` is a word then `>`).
    return match[0].length;
  }

  private readRedirection(command: SimpleCommand, depth: number): void {
    const operator = this.source.slice(this.at, this.at + this.redirectionLength());
    this.at += operator.length;
    this.skipBlanks();
    if (operator.endsWith("&") && this.peek() === "-") {
      this.at += 1;
      return;
    }
    if (this.peek() === undefined || WORD_END.has(this.peek() ?? "")) throw new ShellParseError(`the redirection ${operator} has no target`);
    const target = this.readWord(depth);
    if (operator.endsWith("<<<")) {
      command.input = { kind: "text", text: target.text };
    } else if (operator.endsWith("<<") || operator.endsWith("<<-")) {
      this.heredocs.push({ command, delimiter: target.text, literal: target.quoted, stripTabs: operator.endsWith("-") });
    }
  }

  private readHeredocBodies(): void {
    for (const heredoc of this.heredocs.splice(0)) {
      const lines: string[] = [];
      while (this.at < this.source.length) {
        const newline = this.source.indexOf("\n", this.at);
        const end = newline === -1 ? this.source.length : newline;
        const raw = this.source.slice(this.at, end);
        this.at = newline === -1 ? end : end + 1;
        const line = heredoc.stripTabs ? raw.replace(/^\t+/u, "") : raw;
        if (line === heredoc.delimiter) break;
        lines.push(line);
      }
      const body = lines.join("\n");
      // An unquoted delimiter lets the shell expand the body: its substitutions run.
      heredoc.command.input = { kind: "text", text: heredoc.literal ? body : this.expandNested(body) };
    }
  }

  /** The text of an unquoted here-document with its substitutions read (and replaced by COMPUTED). */
  private expandNested(body: string): string {
    const inner = new ShellReader(`${body}"`);
    const text = inner.readDoubleQuoted(0, true);
    this.commands.push(...inner.commands);
    return text;
  }

  /** Reads one word, with quote removal; expansions become COMPUTED. */
  readWord(depth: number): ShellWord {
    let text = "";
    let quoted = false;
    let glob = false;
    let assignment: boolean | undefined;
    for (;;) {
      const char = this.peek();
      if (char === "=" && assignment === undefined) assignment = !quoted && ASSIGNMENT_NAME.test(text);
      if (char === undefined || WORD_END.has(char)) {
        if (char === "(" && ASSIGNMENT_PREFIX.test(text) && !quoted) {
          this.at += 1;
          this.readArrayValue(depth);
          text += COMPUTED;
          continue;
        }
        return { text, quoted, glob: glob || /\{[^}]*(,|\.\.)[^}]*\}/u.test(text), assignment: assignment ?? false };
      }
      if (char === "\\") {
        const next = this.peek(1);
        this.at += 2;
        if (next === "\n") continue;
        if (next === undefined) throw new ShellParseError("the command ends with a lone backslash");
        text += next;
        quoted = true;
      } else if (char === "'") {
        const end = this.source.indexOf("'", this.at + 1);
        if (end === -1) throw new ShellParseError("a ' quote is not closed");
        text += this.source.slice(this.at + 1, end);
        this.at = end + 1;
        quoted = true;
      } else if (char === '"' || (char === "$" && this.peek(1) === '"')) {
        this.at += char === "$" ? 2 : 1;
        text += this.readDoubleQuoted(depth, false);
        quoted = true;
      } else if (char === "$" && this.peek(1) === "'") {
        const decoded = readAnsiCQuoted(this.source, this.at + 2);
        text += decoded.text;
        this.at = decoded.end;
        quoted = true;
      } else if (char === "$" || char === "`") {
        text += this.readExpansion(depth);
      } else {
        if (char === "*" || char === "?" || char === "[") glob = true;
        text += char;
        this.at += 1;
      }
    }
  }

  /** Reads a `"…"` body (the cursor just after the opening quote), up to and past its closing quote. */
  readDoubleQuoted(depth: number, wholeSource: boolean): string {
    let text = "";
    for (;;) {
      const char = this.peek();
      if (char === undefined) throw new ShellParseError('a " quote is not closed');
      if (char === '"' && (!wholeSource || this.at === this.source.length - 1)) {
        this.at += 1;
        return text;
      }
      if (char === "\\") {
        const next = this.peek(1) ?? "";
        this.at += 2;
        if (next === "\n") continue;
        text += '$`"\\'.includes(next) && next !== "" ? next : `\\${next}`;
      } else if (char === "$" || char === "`") {
        text += this.readExpansion(depth);
      } else {
        text += char;
        this.at += 1;
      }
    }
  }

  /** Reads `$…` or a backtick substitution at the cursor; returns COMPUTED (or `$` when nothing is expanded). */
  private readExpansion(depth: number): string {
    if (this.peek() === "`") {
      this.readBackticks(depth);
      return COMPUTED;
    }
    const next = this.peek(1) ?? "";
    if (this.source.startsWith("$((", this.at)) {
      this.at += 3;
      this.skipArithmetic();
    } else if (next === "(") {
      this.at += 2;
      this.readList(")", depth + 1);
    } else if (next === "{") {
      this.at += 2;
      this.readParameterBraces(depth);
    } else if (/^[A-Za-z0-9_@*#?$!-]$/u.test(next)) {
      this.at += 2;
      if (/^[A-Za-z_]$/u.test(next)) while (/^[A-Za-z0-9_]$/u.test(this.peek() ?? "")) this.at += 1;
    } else {
      this.at += 1;
      return "$";
    }
    return COMPUTED;
  }

  private readBackticks(depth: number): void {
    let inner = "";
    this.at += 1;
    for (;;) {
      const char = this.peek();
      if (char === undefined) throw new ShellParseError("a ` substitution is not closed");
      this.at += 1;
      if (char === "`") break;
      if (char === "\\" && "$`\\".includes(this.peek() ?? "x")) {
        inner += this.peek() ?? "";
        this.at += 1;
      } else {
        inner += char;
      }
    }
    if (depth + 1 > MAX_DEPTH) throw new ShellParseError("the command nests too deeply");
    const nested = new ShellReader(inner);
    nested.readList(undefined, depth + 1);
    this.commands.push(...nested.commands);
  }

  /** `${…}`: skips to the matching brace, reading the substitutions and quotes inside. */
  private readParameterBraces(depth: number): void {
    for (;;) {
      const char = this.peek();
      if (char === undefined) throw new ShellParseError("a ${ is not closed");
      if (char === "}") {
        this.at += 1;
        return;
      }
      if (char === "\\") this.at += 2;
      else if (char === "'") {
        const end = this.source.indexOf("'", this.at + 1);
        if (end === -1) throw new ShellParseError("a ' quote is not closed");
        this.at = end + 1;
      } else if (char === '"') {
        this.at += 1;
        this.readDoubleQuoted(depth, false);
      } else if (char === "$" || char === "`") this.readExpansion(depth);
      else this.at += 1;
    }
  }

  private readArrayValue(depth: number): void {
    for (;;) {
      this.skipBlanks();
      const char = this.peek();
      if (char === undefined) throw new ShellParseError("an array value is not closed");
      if (char === ")") {
        this.at += 1;
        return;
      }
      if (char === "\n") this.at += 1;
      else this.readWord(depth);
    }
  }

  /** Skips `((…))` / `$((…))` arithmetic; a substitution inside it is refused rather than half-read. */
  private skipArithmetic(): void {
    let open = 0;
    for (;;) {
      const char = this.peek();
      if (char === undefined) throw new ShellParseError("an arithmetic (( is not closed");
      if (char === "`" || (char === "$" && this.peek(1) === "(")) throw new ShellParseError("a command substitution inside arithmetic is not read");
      if (char === "(") open += 1;
      if (char === ")") {
        if (open === 0 && this.peek(1) === ")") {
          this.at += 2;
          return;
        }
        open -= 1;
      }
      this.at += 1;
    }
  }

  private skipBlanks(): void {
    for (;;) {
      const char = this.peek();
      if (char !== undefined && BLANK.has(char)) this.at += 1;
      else if (char === "\\" && this.peek(1) === "\n") this.at += 2;
      else return;
    }
  }

  private atWordStart(): boolean {
    const previous = this.source[this.at - 1];
    return previous === undefined || WORD_END.has(previous);
  }

  private peek(offset = 0): string | undefined {
    return this.source[this.at + offset];
  }
}
