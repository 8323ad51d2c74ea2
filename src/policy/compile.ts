/**
 * Compiles a provider's layered rule files into an indexed, immutable policy.
 *
 * Layering: the target's deny list is added to the shared deny floor, which a
 * target cannot escape; the target's accept list replaces the shared accepts
 * when the target has its own `rules.yaml`. Accept rules shorter than
 * `minimum_accept_tokens` are ignored and reported. A rule that does not
 * compile makes the whole policy fail closed: every call is denied until the
 * operator fixes it.
 */
import { canonicalise } from "./grammar/canonicalise.js";
import { compileGrammar, type CompiledGrammar } from "./grammar/option-table.js";
import type { CanonicalArgv, GrammarSpec } from "./grammar/types.js";
import { exactRuleTexts } from "./exact-pattern.js";
import { compileRegexRule, isRegexRule, type RuleMatcher } from "./regex-rule.js";
import { canonicalCommand, compileResourceTypes, type CompiledResourceTypes } from "./resource-types.js";
import { resourceViews } from "./resource-views.js";
import type { LayeredRuleSpecs, ProviderPolicyContext, RuleLayer, RuleList, RuleRef, RuleSpec } from "./types.js";

export interface LiteralRule {
  readonly kind: "literal";
  readonly ref: RuleRef;
  /** The rule text canonicalised with the provider's grammar (`-n x` → `--namespace=x`). */
  readonly canonical: CanonicalArgv;
  /** Canonical tokens compared: the specificity used to pick the reported rule. */
  readonly tokenCount: number;
}

export interface RegexRule {
  readonly kind: "regex";
  readonly ref: RuleRef;
  /** An exact rule (exact-pattern.ts): it matches only a call whose tokens the joined text delimits. */
  readonly exact: boolean;
  /** Linear-time (RE2) matcher; see regex-rule.ts. */
  readonly regex: RuleMatcher;
}

export type CompiledRule = LiteralRule | RegexRule;

/** Rules of one list, indexed by their first positional token so evaluation does not scan every rule. */
export interface RuleIndex {
  readonly all: readonly CompiledRule[];
  readonly byFirstToken: ReadonlyMap<string, readonly LiteralRule[]>;
  /** Literal rules with no positional token (e.g. a deny of `--raw` anywhere). */
  readonly optionOnly: readonly LiteralRule[];
  readonly regex: readonly RegexRule[];
}

export interface RuleError {
  readonly ref: RuleRef;
  readonly message: string;
}

/** One `option_aliases` row: the command paths it applies to (`[]`: every command) and the option strings of its destination. */
export interface CompiledOptionAliasRow {
  readonly commands: readonly (readonly string[])[];
  readonly group: readonly string[];
}

export interface CompiledPolicy {
  readonly context: ProviderPolicyContext;
  readonly grammar: CompiledGrammar;
  readonly deny: RuleIndex;
  readonly accept: RuleIndex;
  /** Accept rules below `minimum_accept_tokens`: never used, shown to the operator. */
  readonly ignoredAccept: readonly RuleRef[];
  /** Rules that failed to compile; when non-empty every call is denied. */
  readonly errors: readonly RuleError[];
  /** `forbidden_args` in canonical spelling. */
  readonly forbiddenArgs: readonly string[];
  /** `ignore_args.leading` and `ignore_args.flags` in canonical spelling. */
  readonly ignoreLeading: ReadonlySet<string>;
  readonly ignoreFlags: ReadonlySet<string>;
  /** Options whose value sets other parameters (`--cli-input-json`). */
  readonly parameterCarriers: readonly string[];
  /** `scope_options` in canonical spelling: the option → the options that make a call act everywhere. */
  readonly scopeOptions: ReadonlyMap<string, readonly string[]>;
  /** `option_aliases`: each row's command paths (`[]`: every command) and its option strings (one destination). */
  readonly optionAliases: readonly CompiledOptionAliasRow[];
  /** The provider's resource types, when it declares them (kubectl). */
  readonly resourceTypes: CompiledResourceTypes | undefined;
}

// Compiling kubectl's option table takes longer than evaluating a call; rules
// are re-read on every call, the provider's grammar is not.
const grammarCache = new WeakMap<GrammarSpec, Map<string, CompiledGrammar>>();

/** The compiled grammar of a provider, cached per grammar spec and locked set. */
export function grammarFor(context: ProviderPolicyContext): CompiledGrammar {
  let byLocked = grammarCache.get(context.grammar);
  if (byLocked === undefined) {
    byLocked = new Map();
    grammarCache.set(context.grammar, byLocked);
  }
  const lockedCommands = context.lockedCommands ?? [];
  const key = [...context.lockedOptions, ...lockedCommands.map((locked) => `${locked.command.join(" ")} ${locked.except.join(" ")}`)].join("\n");
  let compiled = byLocked.get(key);
  if (compiled === undefined) {
    compiled = compileGrammar(context.grammar, context.lockedOptions, lockedCommands);
    byLocked.set(key, compiled);
  }
  return compiled;
}

/** Resolves an option as the operator wrote it (`-o`, `--output`) to its canonical long name. */
function canonicalOptionName(grammar: CompiledGrammar, name: string): string {
  if (name.includes("=")) return name;
  const short = grammar.global.byShort.get(name);
  if (short !== undefined) return short.name;
  return grammar.parser === "pflag" && name.startsWith("--") ? `--${name.slice(2).replaceAll("_", "-")}` : name;
}

/**
 * `forbidden_args` in canonical spelling. A short alias is resolved in every
 * command scope, not only among the globals: kubectl's `-o`, `-w`, `-f` are
 * command-local, and left as `-w` the entry could never match a canonical argv
 * (which spells options long). An alias with different meanings in different
 * scopes (`-f`: `--follow`, `--filename`) forbids all of them: fail closed.
 */
function forbiddenOptionNames(grammar: CompiledGrammar, name: string): string[] {
  if (!name.includes("=") && /^-[^-]$/u.test(name)) {
    const longs = new Set<string>();
    for (const table of [grammar.global, ...grammar.scopes.map((scope) => scope.table)]) {
      const spec = table.byShort.get(name);
      if (spec !== undefined) longs.add(spec.name);
    }
    if (longs.size > 0) return [...longs];
  }
  return [canonicalOptionName(grammar, name)];
}

function compileRule(spec: RuleSpec, list: RuleList, layer: RuleLayer, grammar: CompiledGrammar): CompiledRule | RuleError {
  const ref: RuleRef = { text: spec.text, list, layer, origin: spec.origin };
  if (isRegexRule(spec.text)) {
    try {
      return { kind: "regex", ref, regex: compileRegexRule(spec.text, list), exact: exactRuleTexts(spec.text) !== undefined };
    } catch (error) {
      return { ref, message: (error as Error).message };
    }
  }
  const tokens = spec.text.split(/\s+/u).filter((token) => token.length > 0);
  if (tokens.length === 0) return { ref, message: "the rule is empty" };
  const result = canonicalise(tokens, grammar, "rule");
  if (!result.ok) return { ref, message: result.rejection.reason };
  const canonical = result.canonical;
  const tokenCount = canonical.positionals.length + canonical.options.length + (canonical.hasTail ? 1 + canonical.tail.length : 0);
  return { kind: "literal", ref, canonical, tokenCount };
}

/**
 * A literal rule once per resource type it names, in the plural spelling
 * (`get secret,configmap` → `get secrets`, `get configmaps`): each variant
 * matches alone, under the rule's own reference.
 */
function resourceVariants(written: LiteralRule, types: CompiledResourceTypes | undefined): LiteralRule[] {
  // A sub-command alias is read as the name the CLI lists first (`create deploy` → `create deployment`), as calls are.
  const command = types === undefined ? undefined : canonicalCommand(written.canonical.positionals, types);
  const rule = command === undefined ? written : { ...written, canonical: { ...written.canonical, positionals: command } };
  const views = types === undefined ? undefined : resourceViews(rule.canonical.positionals, types, { dropGroup: rule.ref.list === "deny", rule: true });
  if (views === undefined) return [rule];
  return views.map((positionals) => ({ ...rule, canonical: { ...rule.canonical, positionals } }));
}

function buildIndex(rules: readonly CompiledRule[], types: CompiledResourceTypes | undefined): RuleIndex {
  const byFirstToken = new Map<string, LiteralRule[]>();
  const optionOnly: LiteralRule[] = [];
  const regex: RegexRule[] = [];
  for (const compiled of rules) {
    if (compiled.kind === "regex") {
      regex.push(compiled);
      continue;
    }
    for (const rule of resourceVariants(compiled, types)) indexLiteral(rule, byFirstToken, optionOnly);
  }
  return { all: rules, byFirstToken, optionOnly, regex };
}

function indexLiteral(rule: LiteralRule, byFirstToken: Map<string, LiteralRule[]>, optionOnly: LiteralRule[]): void {
  const first = rule.canonical.positionals[0];
  // A rule that starts with an option (an argparse command's own option) can match any command path.
  if (first === undefined || (first.startsWith("-") && first !== "-")) {
    optionOnly.push(rule);
    return;
  }
  const bucket = byFirstToken.get(first);
  if (bucket === undefined) byFirstToken.set(first, [rule]);
  else bucket.push(rule);
}

function isRuleError(value: CompiledRule | RuleError): value is RuleError {
  return "message" in value;
}

/** Compiles the rules in force for one call (shared, plus the target's layer when it has one). */
export function compilePolicy(context: ProviderPolicyContext, rules: LayeredRuleSpecs): CompiledPolicy {
  const grammar = grammarFor(context);
  const errors: RuleError[] = [];
  const compileList = (specs: readonly RuleSpec[], list: RuleList, layer: RuleLayer): CompiledRule[] =>
    specs.flatMap((spec) => {
      const compiled = compileRule(spec, list, layer, grammar);
      if (isRuleError(compiled)) {
        errors.push(compiled);
        return [];
      }
      return [compiled];
    });

  const deny = [...compileList(rules.shared.deny, "deny", "shared"), ...(rules.target ? compileList(rules.target.deny, "deny", "target") : [])];
  // The shared accepts are compiled even when the target's replace them: a rule
  // that does not compile fails the whole policy closed, whichever list is in force.
  const sharedAccept = compileList(rules.shared.accept, "accept", "shared");
  const acceptCandidates = rules.target ? compileList(rules.target.accept, "accept", "target") : sharedAccept;
  const minimum = context.settings.minimumAcceptTokens;
  // Regex rules are exempt from the minimum: their reach is not a token count.
  const accept = acceptCandidates.filter((rule) => rule.kind === "regex" || rule.tokenCount >= minimum);
  const ignoredAccept = acceptCandidates.filter((rule) => !accept.includes(rule)).map((rule) => rule.ref);

  const resourceTypes = context.settings.resourceTypes === undefined ? undefined : compileResourceTypes(context.settings.resourceTypes);
  return {
    context,
    grammar,
    deny: buildIndex(deny, resourceTypes),
    accept: buildIndex(accept, resourceTypes),
    ignoredAccept,
    errors,
    forbiddenArgs: context.settings.forbiddenArgs.flatMap((arg) => forbiddenOptionNames(grammar, arg)),
    ignoreLeading: new Set(context.settings.ignoreArgs.leading),
    ignoreFlags: new Set(context.settings.ignoreArgs.flags.map((flag) => canonicalOptionName(grammar, flag))),
    parameterCarriers: context.settings.parameterCarriers ?? [],
    scopeOptions: new Map(
      (context.settings.scopeOptions ?? []).map((scope) => [
        canonicalOptionName(grammar, scope.option),
        scope.every.map((every) => canonicalOptionName(grammar, every)),
      ]),
    ),
    optionAliases: (context.settings.optionAliases ?? []).map((row) => ({
      commands: row.commands ?? [[]],
      group: [row.option, ...row.aliases],
    })),
    resourceTypes,
  };
}
