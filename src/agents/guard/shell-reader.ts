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
import { MAX_DEPTH, ShellWordReader, WORD_END } from "./shell-word-reader.js";
import { COMPUTED, ShellParseError, type SimpleCommand } from "./shell-words.js";

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

class ShellReader extends ShellWordReader {
  private readonly heredocs: PendingHeredoc[] = [];

  protected readNested(source: string, depth: number): SimpleCommand[] {
    const nested = new ShellReader(source);
    nested.readList(undefined, depth);
    return nested.commands;
  }

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
}
