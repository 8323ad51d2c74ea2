/**
 * The word level of the guard's shell reader: quote removal (`\\`, `'…'`,
 * `"…"`, `$'…'`, `$"…"`) and expansions (`$x`, `${…}`, `$(…)`, backticks,
 * arithmetic), each expansion becoming COMPUTED in the word's text while the
 * commands inside substitutions are collected. The command level (lists,
 * pipelines, redirections, here-documents) is shell-reader.ts.
 */
import { readAnsiCQuoted } from "./ansi-c-quote.js";
import { COMPUTED, ShellParseError, type ShellWord, type SimpleCommand } from "./shell-words.js";

/** Characters that end an unquoted word. */
export const WORD_END = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const BLANK = new Set([" ", "\t"]);
const ASSIGNMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?$/u;
const ASSIGNMENT_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=$/u;
/** Deeper nesting than any real command line; a bound keeps a hostile one from exhausting the stack. */
export const MAX_DEPTH = 64;

export abstract class ShellWordReader {
  readonly commands: SimpleCommand[] = [];
  protected at = 0;

  constructor(protected readonly source: string) {}

  /** Reads commands until `stop` or the end of the source (the command level). */
  abstract readList(stop: ")" | undefined, depth: number): void;

  /** Every command of `source`, read as a separate command line (a backtick substitution's body). */
  protected abstract readNested(source: string, depth: number): SimpleCommand[];

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
  protected readExpansion(depth: number): string {
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
    this.commands.push(...this.readNested(inner, depth + 1));
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
  protected skipArithmetic(): void {
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

  protected skipBlanks(): void {
    for (;;) {
      const char = this.peek();
      if (char !== undefined && BLANK.has(char)) this.at += 1;
      else if (char === "\\" && this.peek(1) === "\n") this.at += 2;
      else return;
    }
  }

  protected atWordStart(): boolean {
    const previous = this.source[this.at - 1];
    return previous === undefined || WORD_END.has(previous);
  }

  protected peek(offset = 0): string | undefined {
    return this.source[this.at + offset];
  }
}
