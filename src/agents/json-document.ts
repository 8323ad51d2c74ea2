/**
 * JSON and JSONC client files, edited in place with `jsonc-parser`: only the
 * members Torii changes are rewritten, so comments, key order, formatting and
 * every other server stay as the operator (or the client) left them.
 */
import { applyEdits, modify, parse, printParseErrorCode, visit, type ParseError } from "jsonc-parser";
import { ConfigError } from "../config/errors.js";
import type { JsonEdit } from "./adapter.js";
import { sameValue, valueAt, withoutValueAt } from "./document-value.js";

/** 1-based line and column of `offset` in `text`. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

/**
 * The first key repeated within one object, anywhere in the document. A client
 * (JSON.parse) takes the last of two equal keys while an edit would change the
 * first, so Torii would report a registration the client never sees.
 *
 * @throws ConfigError at the repeated key, naming the line of the first.
 */
function refuseDuplicateKeys(file: string, text: string): void {
  const open: Map<string, number>[] = [];
  let duplicate: { key: string; line: number; column: number; firstLine: number } | undefined;
  let prototypeKey: { line: number; column: number } | undefined;
  visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Map());
      },
      onObjectEnd: () => {
        open.pop();
      },
      onObjectProperty: (key, _offset, _length, line, character) => {
        if (key === "__proto__") prototypeKey ??= { line: line + 1, column: character + 1 };
        const keys = open[open.length - 1];
        const first = keys?.get(key);
        if (first !== undefined) duplicate ??= { key, line: line + 1, column: character + 1, firstLine: first };
        else keys?.set(key, line + 1);
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  if (prototypeKey !== undefined) {
    // The parser assigns members with `object[key] = value`: this one would become the object's prototype, and
    // the entry Torii reads (and edits) would be one the client, whose JSON.parse keeps it a plain member, never sees.
    throw new ConfigError(
      file,
      'a member named "__proto__"; Torii cannot read this file as the client does, so it does not rewrite it: remove it',
      prototypeKey,
    );
  }
  if (duplicate === undefined) return;
  throw new ConfigError(
    file,
    `duplicate key ${JSON.stringify(duplicate.key)} (first on line ${duplicate.firstLine}); the client reads only the last one, so Torii does not rewrite this file: remove one`,
    { line: duplicate.line, column: duplicate.column },
  );
}

/**
 * Parses a client's JSON (comments and trailing commas allowed, as the clients
 * themselves allow them); an empty file is an empty object.
 *
 * @throws ConfigError naming file:line:col when the text does not parse, repeats a key in an object, or is not an object.
 */
/** A byte order mark at the start: kept by the decoder (config-file.ts) so a rewrite keeps it, unknown to jsonc-parser. */
const BOM = "\uFEFF";

/** `text` without a leading byte order mark, and the mark (empty when there was none). */
function splitBom(text: string): { bom: string; body: string } {
  return text.startsWith(BOM) ? { bom: BOM, body: text.slice(BOM.length) } : { bom: "", body: text };
}

export function parseJsonDocument(file: string, withBom: string): Record<string, unknown> {
  // Editors on Windows (Notepad, VS Code's "UTF-8 with BOM") write one; the JSON after it is what counts.
  const text = splitBom(withBom).body;
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
  refuseDuplicateKeys(file, text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(file, "the top level is not a JSON object; Torii does not rewrite it", { line: 1, column: 1 });
  }
  return value as Record<string, unknown>;
}

/** How the file indents and ends its lines (two spaces and LF for a new file). */
interface Layout {
  readonly unit: string;
  readonly eol: string;
}

function layoutOf(text: string): Layout {
  return { unit: /^([ \t]+)\S/mu.exec(text)?.[1] ?? "  ", eol: text.includes("\r\n") ? "\r\n" : "\n" };
}

/** `value` as indented JSON whose closing lines sit at `depth` levels. */
function pretty(value: unknown, depth: number, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit)
    .split("\n")
    .join(layout.eol + layout.unit.repeat(depth));
}

/**
 * Sets one member. jsonc-parser finds where (and keeps everything else); its
 * own formatter would also reflow the neighbouring member, so the inserted
 * text is indented here instead, at the depth it lands at.
 */
function setMember(text: string, path: readonly (string | number)[], value: unknown, layout: Layout): string {
  const edits = modify(text, [...path], value, {});
  const [edit] = edits;
  if (value === undefined || edit === undefined || edits.length !== 1) return applyEdits(text, edits);
  const root: unknown = parse(text, [], { allowTrailingComma: true });
  let existing = 0;
  while (existing < path.length && valueAt(root, path.slice(0, existing + 1)) !== undefined) existing += 1;
  if (edit.length > 0) return applyEdits(text, [{ ...edit, content: pretty(value, path.length, layout) }]);
  const nested = path.slice(existing + 1).reduceRight<unknown>((inner, key) => ({ [key]: inner }), value);
  const comma = edit.content.startsWith(",") ? "," : "";
  const indent = layout.unit.repeat(existing + 1);
  const closing = comma === "" ? layout.eol + layout.unit.repeat(existing) : "";
  // An element appended to an existing array (index -1) has no key.
  const key = typeof path[existing] === "number" ? "" : `${JSON.stringify(path[existing])}: `;
  const content = `${comma}${layout.eol}${indent}${key}${pretty(nested, existing + 1, layout)}${closing}`;
  return applyEdits(text, [{ ...edit, content }]);
}

/** Applies `edits` to `text` (parsed first: a file that does not parse is refused), keeping everything else. */
export function editJsonDocument(file: string, withBom: string, edits: readonly JsonEdit[]): string {
  const { bom, body } = splitBom(withBom);
  return bom + editJsonBody(file, body, edits);
}

function editJsonBody(file: string, text: string, edits: readonly JsonEdit[]): string {
  const before = parseJsonDocument(file, text);
  const layout = layoutOf(text);
  const result = edits.reduce(
    (current, edit) => {
      try {
        return setMember(current, edit.path, edit.value, layout);
      } catch (error) {
        // jsonc-parser refuses to add a member to an array or a string (`"mcpServers": []`).
        throw new ConfigError(file, `${edit.path.join(".")} cannot be set (${(error as Error).message}); fix the file by hand, Torii changed nothing`);
      }
    },
    text.trim() === "" ? `{}${layout.eol}` : text,
  );
  checkEditResult(file, before, result, edits);
  return result;
}

/**
 * The edited text must parse, hold each edit's value, and (when every edit
 * names members, not array positions) equal the original everywhere else;
 * otherwise nothing is written.
 */
function checkEditResult(file: string, before: Record<string, unknown>, result: string, edits: readonly JsonEdit[]): void {
  const refused = new ConfigError(file, "Torii's edit would not leave the file as intended (an unusual layout?); edit it by hand, Torii changed nothing");
  let after: Record<string, unknown>;
  try {
    after = parseJsonDocument(file, result);
  } catch {
    throw refused;
  }
  const named = edits.filter((edit) => edit.path.every((key) => typeof key === "string"));
  if (!named.every((edit) => sameValue(valueAt(after, edit.path), edit.value))) throw refused;
  if (named.length !== edits.length) return;
  const rest = (root: unknown): unknown => named.reduce((current, edit) => withoutValueAt(current, edit.path.map(String)), root);
  if (!sameValue(rest(before), rest(after))) throw refused;
}
