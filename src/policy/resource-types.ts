/**
 * kubectl's spellings of one resource type: `secret`, `secrets`, `SECRETS`,
 * `Secret`, `secrets.v1.`, `secret/x`, `pods,secrets` all name secrets (kubectl
 * lower-cases the type and resolves singular, plural, kind and short names),
 * and its sub-command aliases: the provider's table, compiled once, and the
 * lookups rules and calls share. How a call is read per type and name:
 * resource-views.ts.
 */
import type { ObjectOptions } from "./object-set.js";
import type { ResourceTypeSpec } from "./types.js";

/** The provider's resource table for lookups. */
export interface CompiledResourceTypes extends ObjectOptions {
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
  /** The most words of a parent command path in `subcommands`. */
  readonly subcommandDepth: number;
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
    selectors: new Set(spec.selectors ?? []),
    manifests: new Set(spec.manifests ?? []),
    subcommandDepth: Math.max(0, ...Object.keys(spec.command_aliases ?? {}).map((parent) => parent.split(" ").length)),
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

/** The plural of a type spelling (`.group` kept unless `dropGroup`); a type outside the table lower-cased. */
export function canonicalType(type: string, table: CompiledResourceTypes, dropGroup: boolean): string {
  const lower = type.toLowerCase();
  const dot = lower.indexOf(".");
  const base = dot === -1 ? lower : lower.slice(0, dot);
  const plural = table.plural.get(base);
  if (plural === undefined) return lower;
  return dot === -1 || dropGroup ? plural : `${plural}${lower.slice(dot)}`;
}

/** Whether two word lists are equal. */
export function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => b[i] === word);
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
  // Only words right after a parent path are read: a long argv costs no more than the deepest parent.
  for (let i = 1; i < positionals.length && i <= table.subcommandDepth; i += 1) {
    const words = changed ?? positionals;
    const canonical = table.subcommands.get(words.slice(0, i).join(" "))?.get(words[i] as string);
    if (canonical !== undefined) (changed ??= [...positionals])[i] = canonical;
  }
  return changed;
}
