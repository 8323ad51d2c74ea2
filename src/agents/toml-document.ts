/**
 * Codex's `config.toml`, edited by a targeted rewrite of Torii's own table.
 *
 * smol-toml parses (with line and column on errors) and renders TOML, but its
 * `stringify` drops comments and reflows the whole file, so it is used only to
 * render Torii's table: the `[mcp_servers.torii]` block (and its sub-tables
 * such as `[mcp_servers.torii.env]`) is cut out of the text and the new block
 * put in its place (or at the end). Every line outside that block stays
 * byte-for-byte. The result is parsed again and compared with the original,
 * minus Torii's entry: if anything else changed (Torii's entry was written in
 * another form, e.g. inline or as dotted keys), nothing is written.
 */
import { parse, stringify, TomlError } from "smol-toml";
import { ConfigError } from "../config/errors.js";
import type { JsonEdit } from "./adapter.js";
import { sameValue, valueAt, withoutValueAt } from "./document-value.js";

/**
 * Parses TOML.
 *
 * @throws ConfigError naming file:line:col when the text does not parse.
 */
export function parseTomlDocument(file: string, text: string): Record<string, unknown> {
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split("\n")[0]?.replace(/^Invalid TOML document: /u, "") ?? "invalid TOML";
      throw new ConfigError(file, `not valid TOML (${reason}); Torii does not rewrite a file it cannot parse`, { line: error.line, column: error.column });
    }
    throw error;
  }
}

/** Whether `line` is a table header `[a.b…]` or `[[a.b…]]` whose key starts with `path`. */
function headerUnder(line: string, path: readonly string[]): boolean {
  const header = /^\s*\[\[?([^\]]*)\]\]?\s*(#.*)?$/u.exec(line)?.[1];
  if (header === undefined) return false;
  const keys = header.split(".").map((key) => key.trim().replace(/^"(.*)"$|^'(.*)'$/u, "$1$2"));
  return path.every((key, index) => keys[index] === key);
}

const isHeader = (line: string): boolean => /^\s*\[/u.test(line);
const isBlankOrComment = (line: string): boolean => /^\s*(#.*)?$/u.test(line);

/**
 * The text with the tables under `path` replaced by `block` (removed when `block` is empty).
 * A table's trailing comment lines, with the blank lines among and after them,
 * are kept: Torii writes no comments, so they are the operator's (a heading for
 * the next tables, a commented-out entry). Runs of blank lines are joined only
 * where something was cut or put in; everywhere else the text keeps its bytes
 * (blank lines inside a multi-line string included).
 */
function replaceTables(text: string, path: readonly string[], block: string): string {
  // A file whose every line ends in CRLF is edited as LF and given its CRLF back, Torii's lines included
  // (exact both ways: no lone LF to confuse). A file mixing both is edited as it is, Torii's lines in LF.
  const crlf = text.includes("\r\n") && !/(?:^|[^\r])\n/u.test(text);
  if (crlf) return replaceLfTables(text.replaceAll("\r\n", "\n"), path, block).replaceAll("\n", "\r\n");
  return replaceLfTables(text, path, block);
}

function replaceLfTables(text: string, path: readonly string[], block: string): string {
  const lines = text.split("\n");
  const kept: string[] = [];
  const seams: number[] = [];
  let insertAt: number | undefined;
  for (let index = 0; index < lines.length;) {
    if (!headerUnder(lines[index] ?? "", path)) {
      kept.push(lines[index] ?? "");
      index += 1;
      continue;
    }
    insertAt ??= kept.length;
    let end = index + 1;
    while (end < lines.length && !isHeader(lines[end] ?? "")) end += 1;
    let cut = end;
    while (cut > index + 1 && isBlankOrComment(lines[cut - 1] ?? "")) cut -= 1;
    // Leave the table's own trailing blank lines with it; keep from its first trailing comment on.
    while (cut < end && (lines[cut] ?? "").trim() === "") cut += 1;
    seams.push(kept.length);
    kept.push(...lines.slice(cut, end));
    index = end;
  }
  const blockLines = block === "" ? [] : block.trimEnd().split("\n").concat([""]);
  if (insertAt === undefined) {
    const body = kept.join("\n").trimEnd();
    return blockLines.length === 0 ? text : `${body === "" ? "" : `${body}\n\n`}${blockLines.join("\n")}`;
  }
  kept.splice(insertAt, 0, ...blockLines);
  const shifted = seams.map((seam) => (seam > insertAt ? seam + blockLines.length : seam));
  const boundaries = [...new Set([...shifted, insertAt, insertAt + blockLines.length])].sort((a, b) => b - a);
  for (const boundary of boundaries) {
    while (boundary > 0 && boundary < kept.length && kept[boundary - 1]?.trim() === "" && kept[boundary]?.trim() === "") kept.splice(boundary, 1);
    // Removed at the very start: no blank lines left in front of the first line kept.
    while (boundary === 0 && kept.length > 1 && kept[0]?.trim() === "") kept.splice(0, 1);
  }
  return kept.join("\n");
}

/** Renders the table `path` = `value` as TOML text. */
function renderTable(path: readonly string[], value: unknown): string {
  let wrapped: unknown = value;
  for (const key of [...path].reverse()) wrapped = { [key]: wrapped };
  return stringify(wrapped).trimStart();
}

/**
 * Sets (or, for an undefined value, removes) whole tables such as
 * `["mcp_servers", "torii"]`; nothing outside them changes.
 *
 * @throws ConfigError when the file does not parse, or the edit could not be made without touching anything else.
 */
export function editTomlDocument(file: string, text: string, edits: readonly JsonEdit[]): string {
  const before = parseTomlDocument(file, text);
  let result = text;
  for (const edit of edits) {
    const path = edit.path.map(String);
    result = replaceTables(result, path, edit.value === undefined ? "" : renderTable(path, edit.value));
  }
  for (const edit of edits) {
    const path = edit.path.map(String);
    const notOwnTable = new ConfigError(
      file,
      `[${path.join(".")}] is not written as a table of its own (inline or dotted keys); edit it by hand, Torii changed nothing`,
    );
    let after: Record<string, unknown>;
    try {
      after = parseTomlDocument(file, result);
    } catch {
      throw notOwnTable;
    }
    const untouched = sameValue(withoutValueAt(before, path), withoutValueAt(after, path));
    if (!untouched || !sameValue(valueAt(after, path), edit.value)) throw notOwnTable;
  }
  return result;
}
