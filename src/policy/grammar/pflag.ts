/**
 * A model of spf13/pflag as kubectl configures it (cobra commands, kubectl's
 * `_`→`-` name normalisation):
 *
 * - flags are read anywhere before `--`; `--` ends them and is not an argument;
 * - `--name=value` and `--name value` are equal; no abbreviation of long names;
 * - a shorthand cluster consumes boolean letters until a value-taking letter,
 *   which takes the rest of the cluster (after an optional `=`) or the next token;
 * - a value-taking flag takes the next token even when it starts with `-`, which
 *   is why Torii refuses dash-leading separate values instead of guessing;
 * - an unknown flag makes kubectl fail, and Torii cannot know whether it would
 *   take the next token (or the `--`) as its value: it is refused (fail closed).
 */
import { CanonicalBuilder, finish, type CanonicaliseMode } from "./canonical-builder.js";
import { findScope, type CompiledGrammar, type OptionTable } from "./option-table.js";
import type { CanonicaliseResult, OptionSpec } from "./types.js";

const TRUE_SPELLINGS = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE_SPELLINGS = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/** pflag's strconv.ParseBool, canonicalised: true → no value, false → `false`. */
function booleanValue(builder: CanonicalBuilder, value: string, name: string, token: string, index: number): string | undefined {
  if (TRUE_SPELLINGS.has(value)) return undefined;
  if (FALSE_SPELLINGS.has(value)) return "false";
  if (!builder.strict) return value;
  return builder.reject("argv-rejected", token, index, `${name} is a switch: its only values are true and false`);
}

/**
 * Parses one argv with one option table. Returns the index where parsing
 * stopped when `stopAtUnknown` is set (used to find the command path).
 */
function parseWith(argv: readonly string[], table: OptionTable, builder: CanonicalBuilder, stopAtUnknown: boolean): number {
  let i = 0;
  while (i < argv.length) {
    const token = argv[i] as string;
    const index = i;
    if (!stopAtUnknown) builder.checkRawToken(token, index);
    if (token === "--") {
      if (!stopAtUnknown) builder.startTail(argv.slice(i + 1), i + 1);
      return argv.length;
    }
    if (token.startsWith("--")) {
      const consumed = parseLong(argv, i, table, builder, stopAtUnknown);
      if (consumed === 0) return i;
      i += consumed;
    } else if (token.startsWith("-") && token.length > 1) {
      const consumed = parseShortCluster(argv, i, table, builder, stopAtUnknown);
      if (consumed === 0) return i;
      i += consumed;
    } else {
      if (!stopAtUnknown) refuseEmptyWord(token, i, builder);
      builder.positional(token, i);
      i += 1;
    }
  }
  return i;
}

/**
 * An empty word is refused (agent argv): cobra skips empty strings when it
 * looks for the command path (`stripFlags`), so `kubectl create "" secret
 * generic x` runs `create secret generic` while its words read `create`, "",
 * `secret`: no rule could be matched against the command that runs. An empty
 * option value (`-l ""`) is a value, not a word, and stays allowed; so does an
 * empty word after `--` (`exec web-1 -- grep "" /etc/hosts`), where cobra's
 * search for the command has stopped (deny rules still read that tail without
 * its empty words: evaluate.ts `tailAsPositionals`).
 */
function refuseEmptyWord(token: string, index: number, builder: CanonicalBuilder): void {
  if (token === "" && builder.strict) {
    builder.reject(
      "argv-rejected",
      "",
      index,
      `argument ${index} is empty: the CLI skips it when it finds the command, so Torii cannot tell which command runs`,
    );
  }
}

/** Returns how many tokens the long option used (0 = unknown while looking for the command path). */
function parseLong(argv: readonly string[], i: number, table: OptionTable, builder: CanonicalBuilder, stopAtUnknown: boolean): number {
  const token = argv[i] as string;
  const equals = token.indexOf("=");
  const rawName = equals === -1 ? token.slice(2) : token.slice(2, equals);
  const explicit = equals === -1 ? undefined : token.slice(equals + 1);
  if (rawName.length === 0 || rawName.startsWith("-") || rawName.startsWith("=")) {
    builder.reject("argv-rejected", token, i, `argument ${i} is not a valid option (bad flag syntax)`);
  }
  builder.checkOptionName(rawName, token, i);
  const name = `--${rawName.replaceAll("_", "-")}`;
  const spec = table.byLong.get(name);
  builder.checkLocked(spec, name, token, i);
  if (spec === undefined) {
    if (stopAtUnknown) return 0;
    if (builder.strict) {
      // kubectl fails on an unknown flag; one missing from the table could also swallow the next token (or the --).
      builder.reject(
        "argv-rejected",
        token,
        i,
        `unknown option ${name} here: it is not in the provider's option table for this command (check the spelling, or ask the operator to add it)`,
      );
    }
    builder.option(undefined, name, explicit, token, i);
    return 1;
  }
  return takeValue(argv, i, spec, explicit, builder, token);
}

/** Applies an option's arity; returns the tokens consumed. */
function takeValue(argv: readonly string[], i: number, spec: OptionSpec, explicit: string | undefined, builder: CanonicalBuilder, token: string): number {
  switch (spec.value) {
    case "none":
      builder.option(spec, spec.name, explicit === undefined ? undefined : booleanValue(builder, explicit, spec.name, token, i), token, i);
      return 1;
    case "optional":
      builder.option(spec, spec.name, explicit, token, i);
      return 1;
    case "required": {
      if (explicit !== undefined) {
        builder.option(spec, spec.name, explicit, token, i);
        return 1;
      }
      const value = builder.takeSeparateValue(argv, i + 1, spec.name, token, i);
      builder.option(spec, spec.name, value, token, i, i + 1);
      return value === undefined ? 1 : 2;
    }
  }
}

/** `-abc`, `-n=v`, `-nv`, `-n v`. Returns the tokens consumed (0 = unknown while looking for the command path). */
function parseShortCluster(argv: readonly string[], i: number, table: OptionTable, builder: CanonicalBuilder, stopAtUnknown: boolean): number {
  const token = argv[i] as string;
  const letters = token.slice(1);
  for (let at = 0; at < letters.length; at += 1) {
    const letter = letters[at] as string;
    builder.checkOptionName(letter, token, i);
    const spec = table.byShort.get(`-${letter}`);
    builder.checkLocked(spec, `-${letter}`, token, i);
    if (spec === undefined) {
      if (stopAtUnknown) return 0;
      if (builder.strict) {
        builder.reject("argv-rejected", token, i, `unknown short option -${letter} in argument ${i}: Torii cannot tell whether it takes a value`);
      }
      builder.option(undefined, `-${letters.slice(at)}`, undefined, token, i);
      return 1;
    }
    const rest = letters.slice(at + 1);
    // pflag reads `-n=v` as `=`-form only when something follows the `=`
    // (`len(shorthands) > 2 && shorthands[1] == '='`): `-n=` is `-n` with value "=".
    const explicit = rest.length > 1 && rest.startsWith("=") ? rest.slice(1) : undefined;
    if (spec.value === "none") {
      if (explicit !== undefined) return takeValue(argv, i, spec, explicit, builder, token);
      builder.option(spec, spec.name, undefined, token, i);
      continue;
    }
    if (spec.value === "optional") {
      if (explicit !== undefined) return takeValue(argv, i, spec, explicit, builder, token);
      builder.option(spec, spec.name, undefined, token, i);
      continue;
    }
    // A value-taking letter takes the rest of the cluster, or the next token.
    if (rest.length > 0) return takeValue(argv, i, spec, explicit ?? rest, builder, token);
    return takeValue(argv, i, spec, undefined, builder, token);
  }
  return 1;
}

/**
 * Canonicalises a pflag argv. The command path is found first with the global
 * options (as cobra does), then the whole argv is parsed with that command's
 * options; a command option placed before the full command path is refused
 * because the scope it belongs to is not yet known.
 */
export function canonicalisePflag(argv: readonly string[], grammar: CompiledGrammar, mode: CanonicaliseMode): CanonicaliseResult {
  return finish(() => {
    const probe = new CanonicalBuilder(grammar, "rule");
    try {
      parseWith(argv, grammar.global, probe, true);
    } catch {
      // Problems are reported by the full parse below, with its strictness.
    }
    const scope = findScope(grammar, probe.currentPositionals());
    const builder = new CanonicalBuilder(grammar, mode);
    parseWith(argv, scope?.table ?? grammar.global, builder, false);
    const finalScope = findScope(grammar, builder.currentPositionals());
    if (finalScope !== scope && builder.strict) {
      builder.reject(
        "argv-rejected",
        argv.join(" "),
        0,
        `options of "${finalScope?.path.join(" ") ?? ""}" appear before its full command path; put them after the command`,
      );
    }
    return builder.built();
  });
}
