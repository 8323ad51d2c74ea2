/**
 * How `torii provider upgrade` shows each field of `provider.yaml`
 * (config/provider-schema.ts): every field decides what an agent may do or
 * what the child runs with, so every one is compared. A field is either a
 * value, compared whole and shown `from -> to` (a scalar, or a list whose
 * order counts, such as `args_prefix`), or a table, compared as a set of
 * lines, one per row (or per option of a row, where a row holds a list of
 * them), so a change in a table of thousands of rows is the few lines that
 * differ.
 *
 * The map is exhaustive over the schema's fields, and a test
 * (provider-field-views.test.ts) walks the zod schema so that a field added
 * there fails until it has a view here. A row's line names every field the
 * row holds, except the prose (`why`, `names`) that explains a refusal, so a
 * row field added later is shown without a change here.
 */
import { rowsPerTrack, type TrackedRow } from "../../config/release-tracks.js";

/** How one field is compared and shown. */
export type FieldView = { readonly kind: "value" } | { readonly kind: "table"; readonly lines: (value: unknown) => string[] };

type Doc = Readonly<Record<string, unknown>>;

const asDoc = (value: unknown): Doc => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Doc) : {});
const asRows = (value: unknown): Doc[] => (Array.isArray(value) ? value.map(asDoc) : []);
/** A value in a line: a string as it is, a list by commas, anything else as JSON. */
const text = (value: unknown): string => (typeof value === "string" ? value : Array.isArray(value) ? value.map(text).join(",") : JSON.stringify(value));
/** A command path: its words joined by spaces. */
const words = (value: unknown): string => (Array.isArray(value) ? value.map(text).join(" ") : text(value));

/** Whether a row field says nothing: absent, false or an empty list, which every schema here reads as its default. */
const silent = (value: unknown): boolean => value === undefined || value === false || (Array.isArray(value) && value.length === 0);

/**
 * The row's fields its line does not lead with, sorted by name: ` (a: x, flag)`,
 * or nothing. A `true` field is shown by its name.
 */
function rest(row: Doc, shown: readonly string[]): string {
  const parts = Object.keys(row)
    .filter((key) => !shown.includes(key) && !silent(row[key]))
    .sort()
    .map((key) => (row[key] === true ? key : `${key}: ${text(row[key])}`));
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

const VALUE: FieldView = { kind: "value" };
const table = (lines: (value: unknown) => string[]): FieldView => ({ kind: "table", lines });
const eachRow = (line: (row: Doc) => string): FieldView => table((value) => asRows(value).map(line));

/** A list of names (options, variables, prefixes): one line per name. */
const NAMES = table((value) => (Array.isArray(value) ? value.map(text) : []));
/** A list of command paths. */
const PATHS = table((value) => (Array.isArray(value) ? value.map(words) : []));
/** A mapping: one line per key, `key<separator>value`. */
const entries = (separator: string): FieldView => table((value) => Object.entries(asDoc(value)).map(([key, item]) => `${key}${separator}${text(item)}`));
/** Rows led by their command path, every other field after it. */
const COMMAND_ROWS = eachRow((row) => `${words(row.command)}${rest(row, ["command"])}`);
/** Rows that may list release tracks: one line per track, as the policy engine reads them (config/release-tracks.ts); every other field is kept. */
const perTrack = (value: unknown): Doc[] => rowsPerTrack(asRows(value) as unknown as TrackedRow[]);
const TRACKED_COMMAND_ROWS = table((value) => perTrack(value).map((row) => `${words(row.command)}${rest(row, ["command"])}`));

const optionLine = (row: Doc): string => `${text(row.name)}${row.short === undefined ? "" : `/${text(row.short)}`}${rest(row, ["name", "short"])}`;

/** A locked command per release track, with the sub-commands it leaves open; `why` is the denial's prose. */
const LOCKED_COMMANDS = table((value) =>
  perTrack(value).map((row) => {
    const except = Array.isArray(row.except) && row.except.length > 0 ? ` (but ${row.except.map(text).join("|")})` : "";
    return `${words(row.command)}${except}${rest(row, ["command", "except", "why"])}`;
  }),
);

/** A command's options its sub-commands may follow: one line per option, so one option added is one line. */
const PARENT_OPTIONS = table((value) =>
  asRows(value).flatMap((row) => {
    const path = words(row.command);
    const more = rest(row, ["command", "values", "switches"]);
    const values = Array.isArray(row.values) ? row.values.map((name) => `${path} ${text(name)} (takes a value)${more}`) : [];
    const switches = Array.isArray(row.switches) ? row.switches.map((name) => `${path} ${text(name)} (switch)${more}`) : [];
    return values.length + switches.length === 0 ? [`${path}${more}`] : [...values, ...switches];
  }),
);

/** A command scope and each of its options, one line apiece: kubectl's scopes hold thousands of options. */
const COMMAND_SCOPES = table((value) =>
  asRows(value).flatMap((scope) => {
    const path = words(scope.path);
    return [`${path}${rest(scope, ["path", "options"])}`, ...asRows(scope.options).map((option) => `${path} ${optionLine(option)}`)];
  }),
);

/**
 * An option and its aliases, one line per command path the row applies to
 * (`group: --name (aliases: -n,--resource-group,-g)`), or one line when it
 * applies to every command: a row scoped to one more command is one line more.
 */
const OPTION_ALIASES = table((value) =>
  asRows(value).flatMap((row) => {
    const line = `${text(row.option)}${rest(row, ["option", "commands"])}`;
    return Array.isArray(row.commands) && row.commands.length > 0 ? row.commands.map((path) => `${words(path)}: ${line}`) : [line];
  }),
);

/** The mappings of mappings of `command_aliases`: `parent command: alias`. */
const COMMAND_ALIASES = table((value) =>
  Object.entries(asDoc(value)).flatMap(([parent, names]) => Object.entries(asDoc(names)).map(([command, aliases]) => `${parent} ${command}: ${text(aliases)}`)),
);

/** Every field of `provider.yaml` by its dotted path, in the schema's order. */
export const FIELD_VIEWS: ReadonlyMap<string, FieldView> = new Map<string, FieldView>([
  ["version", VALUE],
  ["name", VALUE],
  ["tool", VALUE],
  ["description", VALUE],
  ["expose", VALUE],
  ["command", VALUE],
  ["args_prefix", VALUE],
  ["targeting.mode", VALUE],
  ["targeting.locked_options", NAMES],
  ["targeting.locked_commands", LOCKED_COMMANDS],
  ["targeting.locked_values", eachRow((row) => `${text(row.contains)} (${text(row.option)})${rest(row, ["contains", "option", "names"])}`)],
  ["policy.minimum_accept_tokens", VALUE],
  ["policy.forbidden_args", NAMES],
  ["policy.ignore_args.leading", NAMES],
  ["policy.ignore_args.flags", NAMES],
  ["policy.parameter_carriers", NAMES],
  ["policy.scope_options", eachRow((row) => `${text(row.option)}${rest(row, ["option"])}`)],
  ["policy.option_aliases", OPTION_ALIASES],
  ["policy.release_tracks", NAMES],
  ["policy.resource_types.verbs", PATHS],
  ["policy.resource_types.types", entries(": ")],
  ["policy.resource_types.trailing", PATHS],
  ["policy.resource_types.named.default", VALUE],
  ["policy.resource_types.named.verbs", PATHS],
  ["policy.resource_types.selectors", NAMES],
  ["policy.resource_types.manifests", NAMES],
  ["policy.resource_types.command_aliases", COMMAND_ALIASES],
  ["policy.grant_rule", VALUE],
  ["auth.strategy", VALUE],
  ["auth.fields", eachRow((row) => `${text(row.name)}${rest(row, ["name"])}`)],
  ["auth.inject.environment", entries("=")],
  ["auth.validate.command", VALUE],
  ["auth.validate.args", VALUE],
  ["auth.identity.command", VALUE],
  ["auth.identity.args", VALUE],
  ["auth.identity.field", VALUE],
  ["auth.identity.cache_ttl_seconds", VALUE],
  ["auth.profile_env", VALUE],
  ["auth.removed_env", NAMES],
  ["auth.cache_ttl_seconds", VALUE],
  ["environment.file", VALUE],
  ["argv.parser", VALUE],
  ["argv.forbidden_value_prefixes", NAMES],
  ["argv.fetched_values.url_options", NAMES],
  ["argv.fetched_values.git_options", NAMES],
  ["argv.fetched_values.git_operands_of", PATHS],
  ["argv.fetched_values.literal", COMMAND_ROWS],
  ["argv.file_writes", TRACKED_COMMAND_ROWS],
  ["argv.file_reads", TRACKED_COMMAND_ROWS],
  ["argv.plugins", VALUE],
  ["argv.double_dash", VALUE],
  ["argv.abbreviations", VALUE],
  ["argv.prescanned_options", NAMES],
  [
    "argv.locked_command_options",
    eachRow((row) => `${words(row.command) || "(every command)"} ${text(row.options)}`.trim() + rest(row, ["command", "options", "why"])),
  ],
  ["argv.remote_arguments", COMMAND_ROWS],
  ["argv.parent_options", PARENT_OPTIONS],
  ["argv.options", eachRow(optionLine)],
  ["argv.commands", COMMAND_SCOPES],
  ["runtime.timeout_seconds", VALUE],
  ["runtime.allow_batch_wrapper", VALUE],
  ["runtime.fixed_env", entries("=")],
  ["runtime.working_directory_config", NAMES],
  ["runtime.home_config", NAMES],
]);
