/**
 * kubectl's spellings of one resource type: `secret`, `secrets`, `SECRETS`,
 * `Secret`, `secrets.v1.`, `secret/x`, `pods,secrets` all name secrets (kubectl
 * lower-cases the type and resolves singular, plural, kind and short names).
 * Rules and calls are read per resource type and per name, type in the plural:
 *
 * - `get pods,secrets x y` is read as `get pods x`, `get pods y`, `get secrets x`, `get secrets y`;
 * - `get secret/x pod/y` (every operand `type/name`) as `get secrets x` and `get pods y`;
 * - operands kubectl reads as changes (`key=value`, `key:effect`, `key-`: label,
 *   annotate, taint, set env/image) follow the name in every reading;
 * - `named` commands (`logs`, `exec`, …) take `NAME` (of the default type, a pod)
 *   or `TYPE/NAME` first: `logs api` is `logs pods api`, `logs deploy/api` is `logs deployments api`;
 * - `.group` suffixes: for deny rules the type is read without it (a deny of
 *   `get secrets` also covers `get secrets.v1.`, and a same-named type of
 *   another group: fail closed); for accept rules it stays (`get pods` does not
 *   accept `pods.metrics.k8s.io`).
 */
import type { ResourceTypeSpec } from "./types.js";

/** At most this many readings (types × names) of one call are matched one by one. */
export const MAX_RESOURCE_VIEWS = 64;

/** The provider's resource table for lookups. */
export interface CompiledResourceTypes {
  /** Command paths whose first operand is a resource type list, longest first. */
  readonly verbs: readonly (readonly string[])[];
  /** Of `verbs`, the commands whose last operand is kept after every name. */
  readonly trailing: readonly (readonly string[])[];
  /** Command paths whose first operand is `NAME` (of `namedDefault`) or `TYPE/NAME`, longest first. */
  readonly named: readonly (readonly string[])[];
  readonly namedDefault: string;
  /** Every lower-case spelling (plural, singular, kind, short name) → the plural. */
  readonly plural: ReadonlyMap<string, string>;
  /** Parent command path (words joined by a space) → sub-command alias → the name the CLI lists first. */
  readonly subcommands: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

const compiledCache = new WeakMap<ResourceTypeSpec, CompiledResourceTypes>();

const longestFirst = (paths: readonly (readonly string[])[]): (readonly string[])[] => [...paths].sort((a, b) => b.length - a.length);

/** Compiles (once per spec object) the provider's resource types. */
export function compileResourceTypes(spec: ResourceTypeSpec): CompiledResourceTypes {
  const cached = compiledCache.get(spec);
  if (cached !== undefined) return cached;
  const plural = new Map<string, string>();
  for (const [name, aliases] of Object.entries(spec.types)) {
    const canonical = name.toLowerCase();
    plural.set(canonical, canonical);
    for (const alias of aliases) plural.set(alias.toLowerCase(), canonical);
  }
  const compiled = {
    verbs: longestFirst(spec.verbs),
    trailing: spec.trailing ?? [],
    named: longestFirst(spec.named?.verbs ?? []),
    namedDefault: spec.named?.default ?? "",
    plural,
    subcommands: new Map(
      Object.entries(spec.command_aliases ?? {}).map(([parent, names]) => [
        parent,
        new Map(Object.entries(names).flatMap(([canonical, aliases]) => aliases.map((alias): [string, string] => [alias, canonical]))),
      ]),
    ),
  };
  compiledCache.set(spec, compiled);
  return compiled;
}

function canonicalType(type: string, table: CompiledResourceTypes, dropGroup: boolean): string {
  const lower = type.toLowerCase();
  const dot = lower.indexOf(".");
  const base = dot === -1 ? lower : lower.slice(0, dot);
  const plural = table.plural.get(base);
  if (plural === undefined) return lower;
  return dot === -1 || dropGroup ? plural : `${plural}${lower.slice(dot)}`;
}

interface ResourceItem {
  readonly type: string;
  readonly name: string | undefined;
}

/** `type` or `type/name`, per comma-separated item. */
function itemsOf(operand: string): ResourceItem[] {
  return operand.split(",").map((item) => {
    const slash = item.indexOf("/");
    return slash === -1 ? { type: item, name: undefined } : { type: item.slice(0, slash), name: item.slice(slash + 1) };
  });
}

/**
 * A change operand (label/annotate/env/image `key=value`, taint `key:effect`,
 * a removal `key-`): kubectl ends the resource operands there, and no object
 * name contains `=` or `:` or ends with `-`.
 */
function isChange(operand: string): boolean {
  return operand.includes("=") || operand.includes(":") || (operand.endsWith("-") && operand !== "-");
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => b[i] === word);
}

function commandOf(paths: readonly (readonly string[])[], positionals: readonly string[]): readonly string[] | undefined {
  return paths.find((path) => path.length < positionals.length && path.every((word, i) => positionals[i] === word));
}

/** How to read positionals: a deny rule or a call's deny reading drops `.group`; a call's readings are capped. */
export interface ReadingOptions {
  readonly dropGroup: boolean;
  /** More readings than this throw (the caller fails closed). */
  readonly limit?: number;
  /** A rule: the first operand of a named command may be a type (`deny: [logs pods]`). */
  readonly rule?: boolean;
}

/**
 * The positionals of a call (or a rule) once per resource type and name it
 * names, the type in the plural; undefined when its command takes no resource
 * type, names none, or is already read that way (the common call: no second
 * reading to match).
 */
export function resourceViews(positionals: readonly string[], table: CompiledResourceTypes, options: ReadingOptions): string[][] | undefined {
  const views = typeViews(positionals, table, options) ?? namedViews(positionals, table, options);
  return views !== undefined && views.length === 1 && sameWords(views[0] as string[], positionals) ? undefined : views;
}

function typeViews(positionals: readonly string[], table: CompiledResourceTypes, { dropGroup, limit = Infinity }: ReadingOptions): string[][] | undefined {
  const verb = commandOf(table.verbs, positionals);
  if (verb === undefined) return undefined;
  const operands = positionals.slice(verb.length);
  if ((operands[0] as string).startsWith("-")) return undefined;
  // The last operand of `set serviceaccount` (the account) is kept after every name, like a change.
  const last = table.trailing.some((path) => sameWords(path, verb)) && operands.length > 1 ? operands.length - 1 : -1;
  const changes = operands.filter((operand, i) => i === last || isChange(operand));
  const [typeList, ...names] = operands.filter((operand, i) => i !== last && !isChange(operand));
  if (typeList === undefined) return undefined;
  // kubectl reads every operand as `type/name` once the first one is; otherwise the first is the type list and the others names.
  const items: ResourceItem[] = typeList.includes("/")
    ? [typeList, ...names].flatMap(itemsOf)
    : itemsOf(typeList).flatMap(({ type }) => (names.length === 0 ? [{ type, name: undefined }] : names.map((name): ResourceItem => ({ type, name }))));
  if (items.length > limit) {
    throw new Error(`the call names ${items.length} resources (types × names); more than ${limit} are not read one by one: split the call`);
  }
  return items.map(({ type, name }) => [...verb, canonicalType(type, table, dropGroup), ...(name === undefined ? [] : [name]), ...changes]);
}

function namedViews(positionals: readonly string[], table: CompiledResourceTypes, { dropGroup, rule = false }: ReadingOptions): string[][] | undefined {
  const verb = commandOf(table.named, positionals);
  if (verb === undefined) return undefined;
  const [first, ...rest] = positionals.slice(verb.length) as [string, ...string[]];
  if (first.startsWith("-")) return undefined;
  const slash = first.indexOf("/");
  if (slash !== -1) return [[...verb, canonicalType(first.slice(0, slash), table, dropGroup), first.slice(slash + 1), ...rest]];
  // kubectl reads a plain operand as a pod's name; a rule's known type names the type (`logs pods`: every pod).
  const asType = rule ? canonicalType(first, table, dropGroup) : undefined;
  if (asType !== undefined && table.plural.has(asType.split(".")[0] as string)) return [[...verb, asType, ...rest]];
  return [[...verb, table.namedDefault, first, ...rest]];
}

/**
 * The command path with every sub-command alias replaced by the name the CLI
 * lists first (`create deploy x` → `create deployment x`, `set sa` → `set
 * serviceaccount`), or undefined when no word is an alias. Rules and calls go
 * through this one function; only the word right after a listed parent command
 * path is read, never an operand of a leaf command.
 */
export function canonicalCommand(positionals: readonly string[], table: CompiledResourceTypes): string[] | undefined {
  if (table.subcommands.size === 0) return undefined;
  let changed: string[] | undefined;
  for (let i = 1; i < positionals.length; i += 1) {
    const words = changed ?? positionals;
    const canonical = table.subcommands.get(words.slice(0, i).join(" "))?.get(words[i] as string);
    if (canonical !== undefined) (changed ??= [...positionals])[i] = canonical;
  }
  return changed;
}
