/**
 * What `torii provider upgrade` changes in a provider definition, in terms an
 * operator can review: the generated-from CLI version and every field of
 * `provider.yaml`, each shown as provider-field-views.ts says (a value
 * `from -> to`, a table as the lines added and removed). A field no view
 * names (one an older Torii wrote, or a newer schema's) is still compared
 * whole: no difference in the document goes unshown. An installed file that
 * does not parse (the definition upgrade is there to restore) is one change:
 * the whole file, with why it does not parse.
 */
import { parse } from "yaml";
import { providerFileSchema } from "../../config/provider-schema.js";
import { generatedFromVersion } from "./catalogue.js";
import { FIELD_VIEWS } from "./provider-field-views.js";

/** One reviewed change. */
export interface DefinitionChange {
  readonly what: string;
  readonly added?: readonly string[];
  readonly removed?: readonly string[];
  readonly from?: string;
  readonly to?: string;
}

/** A change as `--json` prints it: a table's lines cut to a few examples, with their counts. */
export interface ChangeSummary {
  readonly what: string;
  readonly from?: string;
  readonly to?: string;
  readonly added?: readonly string[];
  readonly removed?: readonly string[];
  readonly added_count?: number;
  readonly removed_count?: number;
}

/** Lines of a table change named in the terminal and in `--json`: enough to recognise it, not the table. */
const TERMINAL_EXAMPLES = 8;
const JSON_EXAMPLES = 20;

type Doc = Readonly<Record<string, unknown>>;

const isDoc = (value: unknown): value is Doc => typeof value === "object" && value !== null && !Array.isArray(value);
const shown = (value: unknown): string => (value === undefined ? "unset" : JSON.stringify(value));

/** The changes from the `provider.yaml` text `before` to `after`. */
export function diffProviderDefinitions(before: string, after: string): DefinitionChange[] {
  const changes: DefinitionChange[] = [];
  const fromVersion = generatedFromVersion(before);
  const toVersion = generatedFromVersion(after);
  if (fromVersion !== toVersion) changes.push({ what: "option table generated from CLI version", from: fromVersion ?? "unknown", to: toVersion ?? "unknown" });
  const installed = parsedOrProblem(before);
  if (!installed.ok) {
    // The file upgrade is there to replace: what it says cannot be compared, so the change is the whole file.
    changes.push({ what: "provider.yaml", from: `the installed file does not parse (${installed.problem})`, to: "the bundled definition, whole" });
    return changes;
  }
  const [old, next] = comparableDocuments(installed.value, parse(after) as unknown);
  diffField([], old, next, changes);
  return changes;
}

/** `text` as YAML data, or why it is not (a syntax error, a duplicate key, aliases beyond `yaml`'s limit): its first line. */
function parsedOrProblem(text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly problem: string } {
  try {
    return { ok: true, value: parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: message.split("\n")[0]?.replace(/:$/u, "") ?? message };
  }
}

/**
 * Both documents as the schema reads them, defaults applied, so writing out a
 * default is no change; when either does not load (an older tree's file), both
 * as written, so the two sides are read alike.
 */
function comparableDocuments(old: unknown, next: unknown): [unknown, unknown] {
  const oldRead = providerFileSchema.safeParse(old);
  const nextRead = providerFileSchema.safeParse(next);
  return oldRead.success && nextRead.success ? [oldRead.data, nextRead.data] : [old, next];
}

function diffField(path: readonly string[], old: unknown, next: unknown, changes: DefinitionChange[]): void {
  const what = path.join(".");
  const view = FIELD_VIEWS.get(what);
  if (view?.kind === "table") {
    const from = new Set(view.lines(old));
    const to = new Set(view.lines(next));
    const added = [...to].filter((line) => !from.has(line));
    const removed = [...from].filter((line) => !to.has(line));
    if (added.length + removed.length > 0) changes.push({ what, added, removed });
    return;
  }
  if (view === undefined && (isDoc(old) || old === undefined) && (isDoc(next) || next === undefined) && (old !== undefined || next !== undefined)) {
    const keys = new Set([...Object.keys(next ?? {}), ...Object.keys(old ?? {})]);
    for (const key of keys) diffField([...path, key], old?.[key], next?.[key], changes);
    return;
  }
  // A value, or a field no view names: compared whole.
  const from = shown(old);
  const to = shown(next);
  if (from !== to) changes.push({ what, from, to });
}

/** One line per change, for the terminal. */
export function describeChange(change: DefinitionChange): string {
  if (change.added !== undefined || change.removed !== undefined) {
    const part = (sign: string, items: readonly string[] = []) => (items.length === 0 ? "" : ` ${sign}${items.length} (${shortList(items)})`);
    return `  ${change.what}:${part("+", change.added)}${part("-", change.removed)}`;
  }
  return `  ${change.what}: ${change.from ?? ""} -> ${change.to ?? ""}`;
}

/** A change for `--json`: a table's added and removed lines cut to the first few, with how many there are. */
export function summariseChange(change: DefinitionChange): ChangeSummary {
  if (change.added === undefined && change.removed === undefined) return change;
  const added = change.added ?? [];
  const removed = change.removed ?? [];
  return {
    what: change.what,
    added: added.slice(0, JSON_EXAMPLES),
    removed: removed.slice(0, JSON_EXAMPLES),
    added_count: added.length,
    removed_count: removed.length,
  };
}

function shortList(items: readonly string[]): string {
  return items.length <= TERMINAL_EXAMPLES ? items.join(", ") : `${items.slice(0, TERMINAL_EXAMPLES).join(", ")}, …`;
}
