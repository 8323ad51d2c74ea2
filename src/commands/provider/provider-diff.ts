/**
 * What `torii provider upgrade` changes in a provider definition, in terms an
 * operator can review: the generated-from CLI version, scalar fields, and the
 * lists that decide what an agent may do (locked options and commands, forbidden arguments,
 * removed environment variables, options, command paths).
 */
import { parse } from "yaml";
import { rowsPerTrack } from "../../config/release-tracks.js";
import { generatedFromVersion } from "./catalogue.js";

/** One reviewed change. */
export interface DefinitionChange {
  readonly what: string;
  readonly added?: readonly string[];
  readonly removed?: readonly string[];
  readonly from?: string;
  readonly to?: string;
}

type Doc = Record<string, unknown>;

const asDoc = (value: unknown): Doc => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Doc) : {});
const at = (doc: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((node, key) => asDoc(node)[key], doc);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))) : []);
const optionNames = (value: unknown): string[] => (Array.isArray(value) ? value.map((row) => String(asDoc(row).name)) : []);
const shown = (value: unknown): string => (value === undefined ? "unset" : JSON.stringify(value));
const commandPaths = (value: unknown): string[] => (Array.isArray(value) ? value.map((row) => strings(asDoc(row).path).join(" ")) : []);
const lockedValueTexts = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((row) => `${String(asDoc(row).contains)} (${String(asDoc(row).option)})`) : [];
/** A locked command row's paths, one per release track it lists (a folded gcloud row, config/release-tracks.ts). */
const pathsPerTrack = (row: Doc): string[] =>
  rowsPerTrack([{ command: strings(row.command), tracks: Array.isArray(row.tracks) ? strings(row.tracks) : undefined }]).map((one) => one.command.join(" "));
const lockedCommandTexts = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.flatMap((row) => {
        const except = strings(asDoc(row).except);
        return pathsPerTrack(asDoc(row)).map((path) => `${path}${except.length === 0 ? "" : ` (but ${except.join("|")})`}`);
      })
    : [];
const commandOptions = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((row) => `${strings(asDoc(row).command).join(" ")} ${strings(asDoc(row).options).join(",")}`.trim()) : [];

/** The changes from the `provider.yaml` text `before` to `after`. */
export function diffProviderDefinitions(before: string, after: string): DefinitionChange[] {
  const old = parse(before) as unknown;
  const next = parse(after) as unknown;
  const changes: DefinitionChange[] = [];
  const fromVersion = generatedFromVersion(before);
  const toVersion = generatedFromVersion(after);
  if (fromVersion !== toVersion) changes.push({ what: "option table generated from CLI version", from: fromVersion ?? "unknown", to: toVersion ?? "unknown" });
  for (const keys of [["description"], ["command"], ["targeting", "mode"], ["auth", "strategy"], ["argv", "parser"], ["policy", "minimum_accept_tokens"]]) {
    const from = shown(at(old, ...keys));
    const to = shown(at(next, ...keys));
    if (from !== to) changes.push({ what: keys.join("."), from, to });
  }
  const lists: [string, (doc: unknown) => string[]][] = [
    ["targeting.locked_options", (doc) => strings(at(doc, "targeting", "locked_options"))],
    ["targeting.locked_values", (doc) => lockedValueTexts(at(doc, "targeting", "locked_values"))],
    ["targeting.locked_commands", (doc) => lockedCommandTexts(at(doc, "targeting", "locked_commands"))],
    ["policy.forbidden_args", (doc) => strings(at(doc, "policy", "forbidden_args"))],
    ["auth.removed_env", (doc) => strings(at(doc, "auth", "removed_env"))],
    ["argv.options", (doc) => optionNames(at(doc, "argv", "options"))],
    ["argv.commands", (doc) => commandPaths(at(doc, "argv", "commands"))],
    ["argv.locked_command_options", (doc) => commandOptions(at(doc, "argv", "locked_command_options"))],
  ];
  for (const [what, read] of lists) {
    const from = new Set(read(old));
    const to = new Set(read(next));
    const added = [...to].filter((item) => !from.has(item));
    const removed = [...from].filter((item) => !to.has(item));
    if (added.length + removed.length > 0) changes.push({ what, added, removed });
  }
  return changes;
}

/** One line per change, for the terminal. */
export function describeChange(change: DefinitionChange): string {
  if (change.added !== undefined || change.removed !== undefined) {
    const part = (sign: string, items: readonly string[] = []) => (items.length === 0 ? "" : ` ${sign}${items.length} (${shortList(items)})`);
    return `  ${change.what}:${part("+", change.added)}${part("-", change.removed)}`;
  }
  return `  ${change.what}: ${change.from ?? ""} -> ${change.to ?? ""}`;
}

function shortList(items: readonly string[]): string {
  return items.length <= 8 ? items.join(", ") : `${items.slice(0, 8).join(", ")}, …`;
}
