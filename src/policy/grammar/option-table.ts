/**
 * A grammar compiled for lookups: option tables per command scope, the locked
 * option set and the forbidden value prefixes. Built once per provider.
 */
import { compileFetchedValues, type CompiledFetchedValues } from "./fetched-values.js";
import { compileLockedValues, type CompiledLockedValue } from "./locked-values.js";
import type {
  CommandScope,
  FileReadSpec,
  FileWriteSpec,
  GrammarSpec,
  LockedCommand,
  LockedCommandOptions,
  OptionSpec,
  ParentOptions,
  ParserFamily,
  RemoteArgumentSpec,
} from "./types.js";

/** Long-name and short-alias lookups for one command scope (globals included). */
export interface OptionTable {
  readonly byLong: ReadonlyMap<string, OptionSpec>;
  readonly byShort: ReadonlyMap<string, OptionSpec>;
  /** Every long name, for argparse prefix expansion. */
  readonly longNames: readonly string[];
}

export interface ScopedTable {
  readonly path: readonly string[];
  readonly table: OptionTable;
}

export interface CompiledGrammar {
  readonly parser: ParserFamily;
  /** Global options plus the locked options, so every spelling of a locked option is recognised. */
  readonly global: OptionTable;
  /** Command scopes with globals merged in, longest path first. */
  readonly scopes: readonly ScopedTable[];
  /** Canonical long names the broker owns. */
  readonly locked: ReadonlySet<string>;
  /** Lower-cased prefixes that make a CLI read a local file. */
  readonly forbiddenValuePrefixes: readonly string[];
  /** Values the CLI downloads or clones (`fetched-values.ts`). */
  readonly fetchedValues: CompiledFetchedValues;
  /** Arguments that write a local file (`policy/file-writes.ts`). */
  readonly fileWrites: readonly FileWriteSpec[];
  /** Arguments read as a local path (`policy/file-reads.ts`). */
  readonly fileReads: readonly FileReadSpec[];
  /** Unknown command words run plugin programs (`GrammarSpec.plugins`). */
  readonly plugins: boolean;
  /** Commands no rule may allow (the target mode's floor, `locked-commands.ts`). */
  readonly lockedCommands: readonly LockedCommand[];
  /** Options the broker owns under one command path. */
  readonly lockedCommandOptions: readonly LockedCommandOptions[];
  /** Options of commands whose sub-commands may follow them (command-path.ts). */
  readonly parentOptions: readonly ParentOptions[];
  /** Values refused in any argument (`locked-values.ts`). */
  readonly lockedValues: readonly CompiledLockedValue[];
  /** Whether the CLI drops `--` instead of ending its options there (GrammarSpec.doubleDash). */
  readonly doubleDashIgnored: boolean;
  /** Whether a long option may be given by an unambiguous prefix (GrammarSpec.abbreviations). */
  readonly prefixAbbreviations: boolean;
  /** Options the CLI reads at any position of the argv (GrammarSpec.prescannedOptions). */
  readonly prescanned: readonly string[];
  /** Arguments read on another machine (GrammarSpec.remoteArguments). */
  readonly remoteArguments: readonly RemoteArgumentSpec[];
}

function buildTable(options: readonly OptionSpec[]): OptionTable {
  const byLong = new Map<string, OptionSpec>();
  const byShort = new Map<string, OptionSpec>();
  for (const option of options) {
    byLong.set(option.name, option);
    if (option.short !== undefined) byShort.set(option.short, option);
  }
  return { byLong, byShort, longNames: [...byLong.keys()].sort() };
}

/**
 * Compiles a grammar. A locked option missing from the table is added as a
 * value-taking global, so its `=` form, its abbreviations and the value it
 * would swallow are still recognised. The spec's prescanned options are
 * locked too, whatever `providerLocked` says (the schema also requires it).
 */
export function compileGrammar(spec: GrammarSpec, providerLocked: readonly string[], lockedCommands: readonly LockedCommand[] = []): CompiledGrammar {
  // A prescanned option takes effect wherever it stands, where no rule could see it: the broker owns it.
  const lockedOptions = [...new Set([...providerLocked, ...(spec.prescannedOptions ?? [])])];
  const declared = new Set<string>(spec.options.map((option) => option.name));
  for (const scope of spec.commands) for (const option of scope.options) declared.add(option.name);
  const implicitLocked: OptionSpec[] = lockedOptions.filter((name) => !declared.has(name)).map((name) => ({ name, value: "required", repeatable: false }));
  const globals = [...spec.options, ...implicitLocked];
  const scopes = [...spec.commands]
    .sort((a, b) => b.path.length - a.path.length)
    .map((scope: CommandScope) => ({ path: scope.path, table: buildTable([...globals, ...scope.options]) }));
  return {
    parser: spec.parser,
    global: buildTable(globals),
    scopes,
    locked: new Set(lockedOptions),
    forbiddenValuePrefixes: spec.forbiddenValuePrefixes.map((prefix) => prefix.toLowerCase()),
    fetchedValues: compileFetchedValues(spec.fetchedValues),
    fileWrites: spec.fileWrites ?? [],
    fileReads: spec.fileReads ?? [],
    plugins: spec.plugins ?? false,
    lockedCommands,
    lockedCommandOptions: spec.lockedCommandOptions ?? [],
    parentOptions: spec.parentOptions ?? [],
    lockedValues: compileLockedValues(spec.lockedValues),
    doubleDashIgnored: spec.doubleDash === "ignored",
    prefixAbbreviations: spec.abbreviations !== "none",
    prescanned: spec.prescannedOptions ?? [],
    remoteArguments: spec.remoteArguments ?? [],
  };
}

/** The longest declared command path that prefixes `positionals`, if any. */
export function findScope(grammar: CompiledGrammar, positionals: readonly string[]): ScopedTable | undefined {
  return grammar.scopes.find((scope) => scope.path.length <= positionals.length && scope.path.every((word, i) => positionals[i] === word));
}
