/**
 * kubectl's spellings of one resource type: `secret`, `secrets`, `SECRETS`,
 * `Secret`, `secrets.v1.`, `secret/x`, `pods,secrets` all name secrets (kubectl
 * lower-cases the type and resolves singular, plural, kind and short names).
 * Rules and calls are read per resource type in one spelling, the plural:
 *
 * - `get pods,secrets x` is read as `get pods x` and `get secrets x`;
 * - `get secret/x pod/y` (every operand `type/name`) as `get secrets x` and `get pods y`;
 * - `.group` suffixes: for deny rules the type is read without it (a deny of
 *   `get secrets` also covers `get secrets.v1.`, and a same-named type of
 *   another group: fail closed); for accept rules it stays (`get pods` does not
 *   accept `pods.metrics.k8s.io`).
 */
import type { ResourceTypeSpec } from "./types.js";

/** The provider's resource table for lookups. */
export interface CompiledResourceTypes {
  /** Command paths whose first operand is a resource type list, longest first. */
  readonly verbs: readonly (readonly string[])[];
  /** Every lower-case spelling (plural, singular, kind, short name) → the plural. */
  readonly plural: ReadonlyMap<string, string>;
}

const compiledCache = new WeakMap<ResourceTypeSpec, CompiledResourceTypes>();

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
  const verbs = [...spec.verbs].sort((a, b) => b.length - a.length);
  const compiled = { verbs, plural };
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

/** `type` or `type/name`, per comma-separated item. */
function itemsOf(operand: string): { type: string; name: string | undefined }[] {
  return operand.split(",").map((item) => {
    const slash = item.indexOf("/");
    return slash === -1 ? { type: item, name: undefined } : { type: item.slice(0, slash), name: item.slice(slash + 1) };
  });
}

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => b[i] === word);
}

/**
 * The positionals of a call (or a rule) once per resource type it names, each
 * in the plural spelling; undefined when its command takes no resource type,
 * names none, or is already one type in the plural (the common call: no second
 * reading to match). `dropGroup`: read `type.group` as `type` (deny rules).
 */
export function resourceViews(positionals: readonly string[], table: CompiledResourceTypes, dropGroup: boolean): string[][] | undefined {
  const views = typeViews(positionals, table, dropGroup);
  return views !== undefined && views.length === 1 && sameWords(views[0] as string[], positionals) ? undefined : views;
}

function typeViews(positionals: readonly string[], table: CompiledResourceTypes, dropGroup: boolean): string[][] | undefined {
  const verb = table.verbs.find((path) => path.length < positionals.length && path.every((word, i) => positionals[i] === word));
  if (verb === undefined) return undefined;
  const operands = positionals.slice(verb.length);
  const first = operands[0] as string;
  if (first.startsWith("-")) return undefined;
  const views: string[][] = [];
  if (first.includes("/")) {
    // kubectl reads every operand as `type/name` once the first one is.
    for (const operand of operands) {
      for (const { type, name } of itemsOf(operand)) views.push([...verb, canonicalType(type, table, dropGroup), ...(name === undefined ? [] : [name])]);
    }
    return views;
  }
  const rest = operands.slice(1);
  for (const { type, name } of itemsOf(first)) views.push([...verb, canonicalType(type, table, dropGroup), ...(name === undefined ? [] : [name]), ...rest]);
  return views;
}
