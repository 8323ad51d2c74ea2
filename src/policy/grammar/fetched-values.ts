/**
 * Values a CLI downloads or clones before it runs. The download happens on the
 * operator's machine, with its network position, and the body comes back to the
 * agent (as the parameter's value, or in the error text): a server-side request
 * forgery into the output (metadata services, local admin ports). Torii refuses
 * such values in every spelling the CLI would fetch, before anything is spawned:
 *
 * - AWS CLI v1 (`urlOptions: ["*"]`): any operation parameter or operand whose
 *   value starts with `http://` or `https://` (`awscli/paramfile.py`, on unless
 *   `cli_follow_urlparam = false`), except the parameters the CLI itself passes
 *   on literally (`literal`, generated from the installed CLI). The CLI compares
 *   case-sensitively; Torii refuses any case and leading blanks too.
 * - named options (`urlOptions`: kubectl `--filename`, az `--template-uri`): a
 *   `scheme://` element in the value (kubectl splits `-f` as CSV); for argparse
 *   CLIs also in the body, where the command's own options stay unmodelled.
 * - kustomize targets (`gitOptions`, `gitOperandsOf`): what kustomize clones.
 */
import { checkBodyUrlOptions, checkEveryBodyValue, type LiteralTable } from "./fetched-body-values.js";
import { CLONE, DOWNLOAD, fetchedValueRejection, hasUrlElement, isRemoteGitTarget, startsWithUrl, type SitedToken } from "./fetched-value-kinds.js";
import type { ArgvRejection, FetchedValueSpec, LiteralUrlParameter } from "./types.js";

export type { SitedToken } from "./fetched-value-kinds.js";

export interface CompiledFetchedValues {
  readonly everyValue: boolean;
  readonly urlOptions: ReadonlySet<string>;
  readonly gitOptions: ReadonlySet<string>;
  readonly gitOperandsOf: readonly (readonly string[])[];
  readonly literal: LiteralTable;
}

/** A recognised option with its value, if any. */
export interface SitedOption {
  readonly name: string;
  readonly value: string | undefined;
  readonly index: number;
}

/** What a parser model collected, in the agent's order. */
export interface CollectedArgv {
  readonly positionals: readonly SitedToken[];
  readonly options: readonly SitedOption[];
  readonly tail: readonly SitedToken[];
}

/** Compiles the provider's `fetched_values` for lookups. */
export function compileFetchedValues(spec: FetchedValueSpec | undefined): CompiledFetchedValues {
  const literal = new Map<string, LiteralUrlParameter[]>();
  for (const parameter of spec?.literal ?? []) literal.set(parameter.option, [...(literal.get(parameter.option) ?? []), parameter]);
  return {
    everyValue: spec?.urlOptions.includes("*") ?? false,
    urlOptions: new Set(spec?.urlOptions.filter((name) => name !== "*")),
    gitOptions: new Set(spec?.gitOptions),
    gitOperandsOf: spec?.gitOperandsOf ?? [],
    literal,
  };
}

/** AWS CLI v1: modelled (global) option values and the `--` tail are never literal. */
function checkEveryValue(fetched: CompiledFetchedValues, argv: CollectedArgv): ArgvRejection | undefined {
  const inBody = checkEveryBodyValue(fetched.literal, argv.positionals);
  if (inBody !== undefined) return inBody;
  for (const option of argv.options) {
    if (option.value !== undefined && startsWithUrl(option.value)) {
      return fetchedValueRejection({ token: option.value, index: option.index }, option.value, option.name, DOWNLOAD);
    }
  }
  const inTail = argv.tail.find((site) => startsWithUrl(site.token));
  return inTail === undefined ? undefined : fetchedValueRejection(inTail, inTail.token, undefined, DOWNLOAD);
}

/** Modelled options: kubectl `-f` URLs and `-k` remote targets, in every spelling the parser resolved. */
function checkOptions(fetched: CompiledFetchedValues, argv: CollectedArgv): ArgvRejection | undefined {
  for (const option of argv.options) {
    const value = option.value;
    if (value === undefined) continue;
    const site = { token: value, index: option.index };
    if (fetched.urlOptions.has(option.name) && hasUrlElement(value)) return fetchedValueRejection(site, value, option.name, DOWNLOAD);
    if (fetched.gitOptions.has(option.name) && isRemoteGitTarget(value)) return fetchedValueRejection(site, value, option.name, CLONE);
  }
  return undefined;
}

/** `kubectl kustomize <target>`: the operands (also after `--`) of the listed command paths. */
function checkOperands(fetched: CompiledFetchedValues, argv: CollectedArgv): ArgvRejection | undefined {
  const words = argv.positionals.map((site) => site.token);
  const path = fetched.gitOperandsOf.find((command) => command.every((word, i) => words[i] === word));
  if (path === undefined) return undefined;
  const remote = [...argv.positionals.slice(path.length), ...argv.tail].find((site) => isRemoteGitTarget(site.token));
  return remote === undefined ? undefined : fetchedValueRejection(remote, remote.token, undefined, CLONE);
}

/** The first value the CLI would download or clone, as a rejection; undefined when there is none. */
export function findFetchedValue(fetched: CompiledFetchedValues, argv: CollectedArgv): ArgvRejection | undefined {
  return (
    (fetched.everyValue ? checkEveryValue(fetched, argv) : undefined) ??
    checkOptions(fetched, argv) ??
    (fetched.urlOptions.size > 0 ? checkBodyUrlOptions(fetched.urlOptions, argv.positionals) : undefined) ??
    checkOperands(fetched, argv)
  );
}
