/**
 * A strict parser for Torii's `.env` files (`providers/<name>/.env`,
 * `targets/<alias>/.env`).
 *
 * Format:
 * - blank lines and lines whose first non-blank character is `#` are ignored;
 * - `KEY=VALUE`, optionally prefixed by `export ` / `EXPORT `, `set ` / `SET `
 *   or `$env:` (any case, PowerShell style), with spaces or tabs allowed around `=`;
 * - `KEY` matches `^[A-Za-z_][A-Za-z0-9_]*$` and appears once per file;
 * - an unquoted value is trimmed, and a `#` preceded by a space or tab starts a comment;
 * - a single-quoted value is literal and ends on the same line;
 * - a double-quoted value understands `\n`, `\r`, `\t`, `\"` and `\\` (any other
 *   escape is an error) and may span lines;
 * - after a closing quote only blanks and a `#` comment may follow;
 * - `${VAR}` is never expanded; CRLF line ends and a leading UTF-8 BOM are accepted;
 *   a NUL, a carriage return that does not end a line or a byte that is not
 *   UTF-8 is an error.
 *
 * Every problem is a ConfigError naming the file, line and column. Values are
 * secrets, so no message ever quotes the file's text: only positions, and the
 * name of a variable once it is known to be a valid name (for duplicates),
 * and not even that for text piped in (`quoteNames: false`): a bare token
 * piped where `NAME=value` was expected is a valid name too.
 *
 * Node's `util.parseEnv` and `dotenv` are not used: both accept malformed
 * lines silently (a line without `=` swallowing the next one, an unterminated
 * quote eating the rest of the file), which would hand the child a wrong
 * credential instead of telling the operator.
 */
import { ConfigError, combineConfigErrors } from "./errors.js";
import { readTrustedConfigText } from "./read-file.js";
import type { ConfigTrust } from "./trusted-path.js";

/** How many problems one file reports before it stops listing them. */
const MAX_REPORTED_PROBLEMS = 20;

const PREFIX_WORD = /^(?:export|EXPORT|set|SET)[ \t]+/;
const POWERSHELL_PREFIX = "$env:";
const KEY_START = /^[A-Za-z_]$/;
const KEY_PART = /^[A-Za-z0-9_]$/;
/** Marks a line or value whose problem is already recorded. */
const BAD = Symbol("bad");
/** Marks a problem after which nothing else in the file can be parsed reliably. */
const STOP = Symbol("stop");
type Outcome<T> = T | typeof BAD | typeof STOP;

const DOUBLE_QUOTE_ESCAPES: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" };

/** Parsing state shared by the per-line steps. */
interface Cursor {
  readonly file: string;
  readonly lines: readonly string[];
  /** 0-based index of the line being parsed. */
  index: number;
  readonly errors: ConfigError[];
  /** Problems found after the first MAX_REPORTED_PROBLEMS; only counted. */
  omitted: number;
  /** Where the first omitted problem is. */
  firstOmitted: { line: number; column: number } | undefined;
}

/**
 * Parses `.env` text. `file` is used only to locate errors; with `quoteNames`
 * false no message names a variable (text that is not the operator's file).
 *
 * @returns the variables in file order.
 * @throws ConfigError listing every problem (up to 20), each with line and column,
 *   and never any text from the file other than a valid variable name.
 */
export function parseDotenv(file: string, text: string, options: { readonly quoteNames?: boolean } = {}): ReadonlyMap<string, string> {
  const lines = splitLines(text);
  const cursor: Cursor = { file, lines, index: 0, errors: [], omitted: 0, firstOmitted: undefined };
  checkCharacters(cursor);
  const values = new Map<string, string>();
  const firstLine = new Map<string, number>();
  if (cursor.errors.length === 0) {
    for (; cursor.index < lines.length; cursor.index += 1) {
      const entry = parseEntry(cursor);
      if (entry === STOP) break;
      if (entry === undefined || entry === BAD) continue;
      const seen = firstLine.get(entry.key);
      if (seen !== undefined) {
        const named = options.quoteNames === false ? "" : ` ${entry.key}`;
        fail(cursor, entry.line, entry.column, `duplicate variable${named} (first set on line ${seen})`);
        continue;
      }
      firstLine.set(entry.key, entry.line);
      values.set(entry.key, entry.value);
    }
  }
  if (cursor.firstOmitted !== undefined) {
    cursor.errors.push(new ConfigError(file, `${cursor.omitted} more problem(s) from here on, not listed`, cursor.firstOmitted));
  }
  const error = combineConfigErrors(cursor.errors);
  if (error !== undefined) throw error;
  return values;
}

/**
 * Reads and parses a `.env` file below `trust.root`, or returns undefined when
 * it does not exist (an absent `.env` means "no variables"; any other read
 * failure is an error, and so is a file others could have written).
 *
 * @throws ConfigError when the file is untrusted, cannot be read or is malformed.
 */
export function readDotenvIfExists(trust: ConfigTrust, file: string): ReadonlyMap<string, string> | undefined {
  const text = readTrustedConfigText(trust, file);
  return text === undefined ? undefined : parseDotenv(file, text);
}

/** Splits on LF after dropping a leading BOM; a CR right before the LF (CRLF) belongs to the line end. */
function splitLines(text: string): string[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  return body.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

/**
 * NUL cannot reach a child's environment and a lone CR is invisible in an
 * editor: both are refused up front. So is U+FFFD, which is what the UTF-8
 * decoding makes of an invalid byte: passed on, it would hand the child a
 * different secret than the file holds (a literal U+FFFD is refused too; no
 * credential needs one).
 */
function checkCharacters(cursor: Cursor): void {
  cursor.lines.forEach((line, index) => {
    const invalid = line.indexOf("\uFFFD");
    if (invalid !== -1) fail(cursor, index + 1, invalid + 1, "not valid UTF-8 (a byte no UTF-8 character starts with, or U+FFFD); save the file as UTF-8");
    const nul = line.indexOf("\0");
    if (nul !== -1) fail(cursor, index + 1, nul + 1, "NUL character");
    const cr = line.indexOf("\r");
    if (cr !== -1) fail(cursor, index + 1, cr + 1, "carriage return that does not end a line");
  });
}

interface Entry {
  readonly key: string;
  readonly value: string;
  /** Where the key starts (1-based), for duplicate reports. */
  readonly line: number;
  readonly column: number;
}

/**
 * Parses the entry starting on the cursor's line; a double-quoted value may move
 * the cursor to the line holding its closing quote.
 *
 * @returns the entry, or undefined for a blank or comment line.
 */
function parseEntry(cursor: Cursor): Outcome<Entry> | undefined {
  const line = cursor.lines[cursor.index] ?? "";
  const lineNumber = cursor.index + 1;
  let at = skipBlanks(line, 0);
  if (at === line.length || line[at] === "#") return undefined;

  const word = PREFIX_WORD.exec(line.slice(at));
  if (word !== null && line[at + word[0].length] !== "=") {
    at += word[0].length;
  } else if (line.slice(at, at + POWERSHELL_PREFIX.length).toLowerCase() === POWERSHELL_PREFIX) {
    at += POWERSHELL_PREFIX.length;
  }

  const equals = line.indexOf("=", at);
  if (equals === -1) return fail(cursor, lineNumber, at + 1, "expected KEY=VALUE, found no '='");
  const keyEnd = trimBlanksEnd(line, at, equals);
  if (keyEnd === at) return fail(cursor, lineNumber, at + 1, "missing variable name before '='");
  const key = line.slice(at, keyEnd);
  const badKeyChar = key.split("").findIndex((char, i) => !(i === 0 ? KEY_START : KEY_PART).test(char));
  if (badKeyChar !== -1) {
    const reason = badKeyChar === 0 ? "variable name must start with a letter or '_'" : "variable name may contain only letters, digits and '_'";
    return fail(cursor, lineNumber, at + badKeyChar + 1, reason);
  }

  const valueStart = skipBlanks(line, equals + 1);
  const opener = line[valueStart];
  let value: Outcome<string>;
  if (opener === "'") value = singleQuoted(cursor, valueStart);
  else if (opener === '"') value = doubleQuoted(cursor, valueStart);
  else value = unquoted(line, equals + 1);
  return typeof value === "string" ? { key, value, line: lineNumber, column: at + 1 } : value;
}

function singleQuoted(cursor: Cursor, open: number): Outcome<string> {
  const line = cursor.lines[cursor.index] ?? "";
  const close = line.indexOf("'", open + 1);
  if (close === -1) return fail(cursor, cursor.index + 1, open + 1, "unterminated single quote (a single-quoted value ends on its line)");
  return checkAfterQuote(cursor, line, close + 1) ? line.slice(open + 1, close) : BAD;
}

/**
 * Reads a double-quoted value from `open`, possibly across lines.
 *
 * @returns the value; BAD after a recorded problem that still found the closing
 *   quote; STOP when the quote never closes (nothing after it can be told apart
 *   from the value).
 */
function doubleQuoted(cursor: Cursor, open: number): Outcome<string> {
  const openLine = cursor.index + 1;
  const parts: string[] = [];
  let bad = false;
  let at = open + 1;
  for (;;) {
    const line = cursor.lines[cursor.index] ?? "";
    const lineNumber = cursor.index + 1;
    while (at < line.length) {
      const char = line[at] ?? "";
      if (char === '"') {
        if (!checkAfterQuote(cursor, line, at + 1)) return BAD;
        return bad ? BAD : parts.join("");
      }
      if (char === "\\") {
        const escaped = DOUBLE_QUOTE_ESCAPES[line[at + 1] ?? ""];
        if (escaped === undefined) {
          fail(cursor, lineNumber, at + 1, 'unsupported escape in a double-quoted value (use \\n, \\r, \\t, \\" or \\\\)');
          bad = true;
        } else {
          parts.push(escaped);
        }
        at += 2;
        continue;
      }
      parts.push(char);
      at += 1;
    }
    if (cursor.index + 1 >= cursor.lines.length) {
      fail(cursor, openLine, open + 1, "unterminated double quote");
      return STOP;
    }
    parts.push("\n");
    cursor.index += 1;
    at = 0;
  }
}

/** An unquoted value: up to a `#` that follows a blank, without surrounding blanks. */
function unquoted(line: string, from: number): string {
  let end = line.length;
  for (let i = from + 1; i < line.length; i += 1) {
    if (line[i] === "#" && isBlank(line[i - 1])) {
      end = i;
      break;
    }
  }
  const start = skipBlanks(line, from);
  return line.slice(start, Math.max(start, trimBlanksEnd(line, start, end)));
}

/** After a closing quote only blanks and an optional `#` comment may follow. */
function checkAfterQuote(cursor: Cursor, line: string, from: number): boolean {
  const at = skipBlanks(line, from);
  if (at === line.length || line[at] === "#") return true;
  fail(cursor, cursor.index + 1, at + 1, "unexpected text after the closing quote");
  return false;
}

function fail(cursor: Cursor, line: number, column: number, detail: string): typeof BAD {
  if (cursor.errors.length < MAX_REPORTED_PROBLEMS) {
    cursor.errors.push(new ConfigError(cursor.file, detail, { line, column }));
  } else {
    cursor.omitted += 1;
    cursor.firstOmitted ??= { line, column };
  }
  return BAD;
}

function isBlank(char: string | undefined): boolean {
  return char === " " || char === "\t";
}

function skipBlanks(line: string, from: number): number {
  let at = from;
  while (isBlank(line[at])) at += 1;
  return at;
}

function trimBlanksEnd(line: string, start: number, end: number): number {
  let at = end;
  while (at > start && isBlank(line[at - 1])) at -= 1;
  return at;
}
