/**
 * JSON and JSONC client files, edited in place with `jsonc-parser`: only the
 * members Torii changes are rewritten, so comments, key order, formatting and
 * every other server stay as the operator (or the client) left them.
 */
import { applyEdits, modify, parse, printParseErrorCode, type FormattingOptions, type ParseError } from "jsonc-parser";
import { ConfigError } from "../config/errors.js";
import type { JsonEdit } from "./adapter.js";

/** 1-based line and column of `offset` in `text`. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/**
 * Parses a client's JSON (comments and trailing commas allowed, as the clients
 * themselves allow them); an empty file is an empty object.
 *
 * @throws ConfigError naming file:line:col when the text does not parse or is not an object.
 */
export function parseJsonDocument(file: string, text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    throw new ConfigError(
      file,
      `not valid JSON (${printParseErrorCode(first.error)}); Torii does not rewrite a file it cannot parse`,
      positionOf(text, first.offset),
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(file, "the top level is not a JSON object; Torii does not rewrite it", { line: 1, column: 1 });
  }
  return value as Record<string, unknown>;
}

/** The indentation the file already uses (two spaces for a new file). */
function formattingOf(text: string): FormattingOptions {
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indented?.startsWith("\t") === true) return { insertSpaces: false, tabSize: 1, eol: text.includes("\r\n") ? "\r\n" : "\n" };
  return { insertSpaces: true, tabSize: indented?.length ?? 2, eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

/** Applies `edits` to `text` (parsed first: a file that does not parse is refused), keeping everything else. */
export function editJsonDocument(file: string, text: string, edits: readonly JsonEdit[]): string {
  parseJsonDocument(file, text);
  let result = text.trim() === "" ? "{}\n" : text;
  const formattingOptions = formattingOf(text);
  for (const edit of edits) {
    result = applyEdits(result, modify(result, [...edit.path], edit.value, { formattingOptions }));
  }
  return result;
}
