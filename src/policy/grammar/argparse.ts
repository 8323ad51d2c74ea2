/**
 * A model of Python's argparse (3.11) as the AWS CLI and the Azure CLI use it,
 * for the options in the provider's table (the CLI's global options):
 *
 * - a long option may be abbreviated to any unambiguous prefix (`--prof` is
 *   `--profile`, the aws and az CLIs keep `allow_abbrev`), also in the
 *   `--prof=value` form; an ambiguous prefix is an error. A CLI that turns
 *   prefixes off (`abbreviations: none`, gcloud) reads only full names, and a
 *   prefix is an unknown token handed to the command's parser;
 * - `-o=json`, `-ojson` and `-o json` are equal; boolean shorts cluster (`-vh`);
 * - a known option's separate value may not start with `-` (argparse would read
 *   it as the next option and fail);
 * - tokens argparse does not know (an AWS operation's own options and their
 *   values) are passed on to the command's own parser in order, so they stay
 *   in the body, where only the CLI knows their arity;
 * - after `--` everything is an argument, unless the CLI drops every `--`
 *   (`doubleDash: ignored`, the AWS CLI): then the `--` is dropped here too and
 *   parsing goes on, so the canonical argv (checked and spawned) has no tail.
 */
import { CanonicalBuilder, finish, type CanonicaliseMode } from "./canonical-builder.js";
import { findScope, type CompiledGrammar, type OptionTable } from "./option-table.js";
import type { CanonicaliseResult, OptionSpec } from "./types.js";

const NEGATIVE_NUMBER = /^-\d+$|^-\d*\.\d+$/u;

/** Resolves `--name` by exact match or, where the CLI allows it, unambiguous prefix, as argparse does. */
function resolveLong(
  name: string,
  table: OptionTable,
  grammar: CompiledGrammar,
  builder: CanonicalBuilder,
  token: string,
  index: number,
): OptionSpec | undefined {
  const exact = table.byLong.get(name);
  if (exact !== undefined || !grammar.prefixAbbreviations) return exact;
  const candidates = table.longNames.filter((long) => long.startsWith(name));
  if (candidates.length === 1) return table.byLong.get(candidates[0] as string);
  if (candidates.length > 1) {
    // Ambiguous: the CLI would fail, but say so when a locked option was aimed at.
    for (const candidate of candidates) builder.checkLocked(table.byLong.get(candidate), candidate, token, index);
    builder.reject("argv-rejected", token, index, `${name} is ambiguous: it could be ${candidates.join(", ")}`);
  }
  return undefined;
}

/** Records a known option with its value, per its arity. Returns the tokens consumed. */
function takeKnown(argv: readonly string[], i: number, spec: OptionSpec, explicit: string | undefined, builder: CanonicalBuilder): number {
  const token = argv[i] as string;
  builder.checkLocked(spec, spec.name, token, i);
  if (spec.value === "none") {
    if (explicit !== undefined) {
      builder.reject("argv-rejected", token, i, `${spec.name} is a switch and takes no value`);
    }
    builder.option(spec, spec.name, undefined, token, i);
    return 1;
  }
  if (explicit !== undefined || spec.value === "optional") {
    builder.option(spec, spec.name, explicit, token, i);
    return 1;
  }
  const value = builder.takeSeparateValue(argv, i + 1, spec.name, token, i);
  builder.option(spec, spec.name, value, token, i, i + 1);
  return value === undefined ? 1 : 2;
}

/** `-o`, `-o=json`, `-ojson`, and clusters of boolean shorts (`-vh`). */
function parseSingleDash(argv: readonly string[], i: number, table: OptionTable, builder: CanonicalBuilder): number {
  const token = argv[i] as string;
  let letters = token.slice(1);
  for (;;) {
    const letter = letters.slice(0, 1);
    builder.checkOptionName(letter, token, i);
    const spec = table.byShort.get(`-${letter}`);
    if (spec === undefined) {
      // argparse passes an unknown single-dash token on to the command's parser.
      if (letters === token.slice(1)) {
        builder.checkOptionName(letters.split("=")[0] ?? letters, token, i);
        // az and gcloud add the global options to each command's parser, which reads
        // `-rX v` as the command's switch -r then the global -X: a locked one is refused.
        for (const later of letters.slice(1)) builder.checkLocked(table.byShort.get(`-${later}`), `-${later}`, token, i);
        builder.positional(token, i);
        return 1;
      }
      return builder.reject("argv-rejected", token, i, `-${letter} in argument ${i} is not a known option`);
    }
    const rest = letters.slice(1);
    if (rest.length === 0) return takeKnown(argv, i, spec, undefined, builder);
    // Only the token's first option drops an `=` (argparse splits `-o=json` at the
    // `=` when `-o` is an option string); inside a cluster the rest is the value
    // as written: `-ho=json` sets the output to "=json".
    const first = letters.length === token.length - 1;
    const explicit = first && rest.startsWith("=") ? rest.slice(1) : rest;
    if (spec.value !== "none") return takeKnown(argv, i, spec, explicit, builder);
    if (rest.startsWith("=")) return takeKnown(argv, i, spec, explicit, builder);
    // A boolean short followed by more letters: argparse reads the next letter as another short.
    takeKnown(argv, i, spec, undefined, builder);
    letters = rest;
  }
}

function parseWith(argv: readonly string[], grammar: CompiledGrammar, table: OptionTable, builder: CanonicalBuilder): void {
  for (let i = 0; i < argv.length;) {
    const token = argv[i] as string;
    builder.checkRawToken(token, i);
    if (token === "--" && grammar.doubleDashIgnored) {
      i += 1;
      continue;
    }
    if (token === "--") {
      builder.startTail(argv.slice(i + 1), i + 1);
      return;
    }
    if (!token.startsWith("-") || token === "-" || NEGATIVE_NUMBER.test(token)) {
      builder.positional(token, i);
      i += 1;
      continue;
    }
    if (!token.startsWith("--")) {
      i += parseSingleDash(argv, i, table, builder);
      continue;
    }
    const equals = token.indexOf("=");
    const name = equals === -1 ? token : token.slice(0, equals);
    const explicit = equals === -1 ? undefined : token.slice(equals + 1);
    builder.checkOptionName(name.slice(2), token, i);
    if (name === "--") {
      builder.reject("argv-rejected", token, i, `argument ${i} is not a valid option`);
    }
    const spec = resolveLong(name, table, grammar, builder, token, i);
    if (spec === undefined) {
      // Unknown to the global parser: the command's own option, kept in place.
      builder.positional(token, i);
      i += 1;
      continue;
    }
    i += takeKnown(argv, i, spec, explicit, builder);
  }
}

/**
 * Canonicalises an argparse argv: known options are expanded and moved after
 * the body (positionals and the command's own options, in their order).
 */
export function canonicaliseArgparse(argv: readonly string[], grammar: CompiledGrammar, mode: CanonicaliseMode): CanonicaliseResult {
  return finish(() => {
    // Command scopes (rare for argparse CLIs) are chosen from the leading words.
    const leading: string[] = [];
    for (const token of argv) {
      if (token === "--" && grammar.doubleDashIgnored) continue;
      if (token.startsWith("-")) break;
      leading.push(token);
    }
    const table = findScope(grammar, leading)?.table ?? grammar.global;
    const builder = new CanonicalBuilder(grammar, mode);
    parseWith(argv, grammar, table, builder);
    return builder.built();
  });
}
