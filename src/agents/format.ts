/**
 * The two file formats behind one interface: parse (with file:line:col on
 * errors) and apply edits that keep everything Torii does not own.
 */
import type { ClientAdapter, JsonEdit } from "./adapter.js";
import { editJsonDocument, parseJsonDocument } from "./json-document.js";
import { editTomlDocument, parseTomlDocument } from "./toml-document.js";

/** A client file format. */
export interface DocumentFormat {
  /** Parses `text` (an absent file is parsed as empty). @throws ConfigError with the position of the first error. */
  parse(file: string, text: string): Record<string, unknown>;
  /** Returns `text` with `edits` applied. @throws ConfigError when the text does not parse. */
  edit(file: string, text: string, edits: readonly JsonEdit[]): string;
}

/** JSON and JSONC (comments and trailing commas kept). Hook files are JSON too. */
export const JSON_FORMAT: DocumentFormat = { parse: parseJsonDocument, edit: editJsonDocument };

const FORMATS: Readonly<Record<ClientAdapter["format"], DocumentFormat>> = {
  json: JSON_FORMAT,
  toml: { parse: parseTomlDocument, edit: editTomlDocument },
};

/** The format of `client`'s configuration file. */
export function formatOf(client: ClientAdapter): DocumentFormat {
  return FORMATS[client.format];
}
