/**
 * Jasper, the decision procedure, in its fixed order:
 *
 *   canonicalise (locked options, forbidden values, unparseable spellings)
 *   → a policy that failed to compile denies everything
 *   → forbidden_args, in any position
 *   → ignore_args normalisation (for evaluation only)
 *   → explicit deny → accept → unresolved
 *
 * Any exception along the way is a deny (`policy-error`): the engine fails closed.
 */
import type { CompiledOptionAliasRow, CompiledPolicy, CompiledRule, LiteralRule, RuleIndex } from "./compile.js";
import { canonicalise } from "./grammar/canonicalise.js";
import type { CredentialPlaces } from "./grammar/credential-places.js";
import { bodyOption } from "./grammar/body-option.js";
import { commandBody, flattenCanonical, type ArgvRejection, type CanonicalArgv } from "./grammar/types.js";
import { denyWordMatches } from "./object-set.js";
import { nameableTokens } from "./exact-pattern.js";
import { fileWriteReason, localFileWrite, namesFileWrite, type LocalWrite } from "./file-writes.js";
import { fileWriteHold } from "./file-write-hold.js";
import { fileReadReason, isFileRead, localFileRead, type FileReadHit } from "./file-reads.js";
import { carriesParameters } from "./parameter-carriers.js";
import { acceptPerResource, denyPerResource, withCommandAliases } from "./resource-decision.js";
import type { DenyDecision, PolicyDecision, PolicyEvaluation, RuleRef } from "./types.js";

/** The canonical argv after `ignore_args`, as rules see it. */
export interface EvaluationView {
  readonly positionals: readonly string[];
  readonly options: readonly string[];
  readonly hasTail: boolean;
  readonly tail: readonly string[];
  /** Space-joined tokens, for regex rules. */
  readonly joined: string;
}

/** Applies `ignore_args`: leading tokens dropped repeatedly, listed options dropped anywhere. */
export function normaliseForEvaluation(policy: CompiledPolicy, canonical: CanonicalArgv): EvaluationView {
  let start = 0;
  while (start < canonical.positionals.length && policy.ignoreLeading.has(canonical.positionals[start] as string)) {
    start += 1;
  }
  const keep = (token: string): boolean => !policy.ignoreFlags.has(splitOption(token).name);
  const view = {
    positionals: canonical.positionals.slice(start).filter(keep),
    options: canonical.options.filter(keep),
    hasTail: canonical.hasTail,
    tail: canonical.tail,
  };
  return { ...view, joined: flattenCanonical(view).join(" ") };
}

/** The view with the `--` tail appended to the positionals, for deny matching. */
function tailAsPositionals(view: EvaluationView): EvaluationView {
  // Without its empty words, as cobra finds a command (`get -- "" secrets` may run as `get secrets`): a deny only gains matches.
  const positionals = [...view.positionals, ...view.tail.filter((word) => word !== "")];
  return { positionals, options: view.options, hasTail: false, tail: [], joined: [...positionals, ...view.options].join(" ") };
}

/** The view without its first positional when that word is a release track; undefined otherwise. */
function withoutReleaseTrack(view: EvaluationView, tracks: readonly string[] | undefined): EvaluationView | undefined {
  const first = view.positionals[0];
  if (tracks === undefined || first === undefined || !tracks.includes(first)) return undefined;
  const positionals = view.positionals.slice(1);
  return { ...view, positionals, joined: flattenCanonical({ positionals, options: view.options, hasTail: view.hasTail, tail: view.tail }).join(" ") };
}

function mapDefined<T, U>(value: T | undefined, map: (value: T) => U | undefined): U | undefined {
  return value === undefined ? undefined : map(value);
}

function isPrefix(prefix: readonly string[], tokens: readonly string[], anyObject = false): boolean {
  if (anyObject) return prefix.length <= tokens.length && prefix.every((token, i) => denyWordMatches(token, tokens[i] as string));
  return prefix.length <= tokens.length && prefix.every((token, i) => tokens[i] === token);
}

/**
 * A rule option without a value (`--raw`) matches that option with any value;
 * with a value (`--namespace=x`) it matches exactly. Each rule option consumes
 * one argv option, so a rule that names an option twice needs it twice.
 *
 * Deny rules pass the provider's scope options (`--namespace` → `--all-namespaces`):
 * a call that does not give one acts where a default the broker cannot see
 * says (the kubeconfig's namespace), and a call with an "every" option acts
 * everywhere, so both are read as giving the rule's value (fail closed). An
 * empty value (`-n ""`, `--namespace=`) names nothing: kubectl falls back to
 * the same default as when the option is absent.
 */
function optionsIncluded(ruleOptions: readonly string[], argvOptions: readonly string[], scopes?: ReadonlyMap<string, readonly string[]>): boolean {
  const available = [...argvOptions];
  for (const wanted of ruleOptions) {
    const at = wanted.includes("=") ? available.indexOf(wanted) : available.findIndex((option) => option === wanted || option.startsWith(`${wanted}=`));
    if (at !== -1) {
      available.splice(at, 1);
      continue;
    }
    const every = scopes?.get(splitOption(wanted).name);
    if (every === undefined) return false;
    const named = (name: string): boolean =>
      argvOptions.some((option) => {
        const given = splitOption(option);
        return given.name === name && given.value !== "";
      });
    if (named(splitOption(wanted).name) && !every.some(named)) return false;
  }
  return true;
}

/**
 * Accept rules: an option the rule names with a value (`--group=devs`) may
 * appear in the call no more times than the rule names it. A repeatable
 * option accumulates (kubectl's slice flags: `create clusterrolebinding b
 * --clusterrole=view --group=devs --group=system:unauthenticated` binds both
 * groups), so a rule naming one value says nothing about a call adding
 * another. An option named without a value (`-f`: any file) is not limited.
 */
function valuedOptionsEffective(ruleOptions: readonly string[], argvOptions: readonly string[], scopes?: ReadonlyMap<string, readonly string[]>): boolean {
  const named = new Map<string, number>();
  const ruleNames = new Set(ruleOptions.map((option) => splitOption(option).name));
  for (const option of ruleOptions) {
    const { name, value } = splitOption(option);
    if (value !== undefined) named.set(name, (named.get(name) ?? 0) + 1);
    // A scope option's "every" option wins over it (`get secrets -n dev -A` lists every namespace): any spelling, `=false`
    // too, unless the rule names that option itself (`get pods -n prod -A` accepts what it says).
    const every = (scopes?.get(name) ?? []).filter((everyName) => !ruleNames.has(everyName));
    if (argvOptions.some((given) => every.includes(splitOption(given).name))) return false;
  }
  for (const [name, count] of named) {
    if (argvOptions.filter((option) => splitOption(option).name === name).length > count) return false;
  }
  return true;
}

function isOptionLike(token: string): boolean {
  return token.startsWith("-") && token !== "-";
}

function splitOption(token: string): { name: string; value: string | undefined } {
  const equals = token.indexOf("=");
  return equals === -1 ? { name: token, value: undefined } : { name: token.slice(0, equals), value: token.slice(equals + 1) };
}

/**
 * How many tokens after `argv[j]` a rule option with its value words takes
 * there, or undefined when it does not match there. The command's own parser
 * (an AWS operation's, az's) accepts abbreviations, glued values and clusters
 * of shorts Torii cannot expand, so for deny rules and forbidden arguments any
 * spelling body-option.ts reads as the option counts (fail closed); accept rules
 * need the full name. A value after `=` (in the rule or the argv) is the first
 * value word.
 */
function bodyOptionSpan(
  ruleToken: string,
  ruleValues: readonly string[],
  argv: readonly string[],
  j: number,
  abbreviations: boolean,
  aliases?: OptionAliases,
): number | undefined {
  const rule = splitOption(ruleToken);
  const values = rule.value === undefined ? ruleValues : [rule.value, ...ruleValues];
  const token = argv[j] as string;
  // Deny rules: any option string of the rule option's destination counts (az `-n prod` for `--name prod`).
  const read = abbreviations ? bodyOption(token, aliases?.get(rule.name) ?? [rule.name]) : splitOption(token);
  if (read === undefined || (!abbreviations && read.name !== rule.name)) return undefined;
  if (read.value !== undefined && values.length > 0 && read.value !== values[0]) return undefined;
  const following = read.value === undefined ? values : values.slice(1);
  return following.every((value, k) => argv[j + 1 + k] === value) ? following.length : undefined;
}

/**
 * The part of an argparse rule after its command path: each option it names
 * (with the value words that follow it in the rule) must appear somewhere in
 * the argv body after the command path, in any order: the command's parser
 * reads options anywhere.
 */
function bodyOptionsIncluded(ruleRest: readonly string[], argvRest: readonly string[], abbreviations: boolean, aliases?: OptionAliases): boolean {
  const used = new Set<number>();
  for (let r = 0; r < ruleRest.length;) {
    const option = ruleRest[r] as string;
    let end = r + 1;
    while (end < ruleRest.length && !isOptionLike(ruleRest[end] as string)) end += 1;
    if (!takeBodyOption(option, ruleRest.slice(r + 1, end), argvRest, used, abbreviations, aliases)) return false;
    r = end;
  }
  return true;
}

/** Marks as used the first unused argv tokens that give the rule option and its values; false when none do. */
function takeBodyOption(
  option: string,
  values: readonly string[],
  argv: readonly string[],
  used: Set<number>,
  abbreviations: boolean,
  aliases?: OptionAliases,
): boolean {
  for (let j = 0; j < argv.length; j += 1) {
    const span = used.has(j) ? undefined : bodyOptionSpan(option, values, argv, j, abbreviations, aliases);
    if (span === undefined) continue;
    const tokens = Array.from({ length: span + 1 }, (_, k) => j + k);
    if (tokens.some((k) => k > j && used.has(k))) continue;
    tokens.forEach((k) => used.add(k));
    return true;
  }
  return false;
}

/** How literal rules read the positional part of an argv, by parser family. */
export interface LiteralMatchMode {
  /** argparse: options in the body (the command's own) match in any order after the command path. */
  readonly bodyOptionsAnywhere: boolean;
  /** Deny rules: an abbreviation of a body option counts as the option. */
  readonly abbreviations: boolean;
  /**
   * Accept rules: an option the rule names must end as the rule says, so the
   * call may not set it again (argparse body: bodyOptionsEffective) or add
   * values to it (a repeatable option named with a value: valuedOptionsEffective).
   */
  readonly effectiveOnly?: boolean;
  /**
   * argparse: each option string → every option string of its destination
   * (`policy.option_aliases`: az `-g` and `--resource-group`). Deny rules read
   * any of them as the rule's option; accept rules count every one as setting
   * it again (bodyOptionsEffective). Each row applies to the calls under its
   * command paths; for each option string the most specific row wins (aliasesForCall).
   */
  readonly aliases?: readonly CompiledOptionAliasRow[];
  /** Deny rules, for a call with a parameter carrier (`--cli-input-json`): every body option counts as present. */
  readonly carried?: boolean;
  /** Deny rules: a resource reading's ANY_OBJECT word matches any rule word (object-set.ts). */
  readonly anyObject?: boolean;
  /**
   * The provider's scope options. Deny rules: a call without the option, or with
   * its "every" option, counts as giving the rule's value (optionsIncluded).
   * Accept rules: a call with the "every" option is not the rule's scope
   * (valuedOptionsEffective).
   */
  readonly scopes?: ReadonlyMap<string, readonly string[]>;
  /**
   * Deny rules (argparse): the command path is the body's first words that are
   * not options, as each sub-command parser takes them, and the command's
   * options may stand before it (`ec2 --user-data=x run-instances` sends UserData).
   */
  readonly pathFromWords?: boolean;
}

/** Option string → every option string of its destination (CompiledPolicy.optionAliases). */
type OptionAliases = ReadonlyMap<string, readonly string[]>;

const PREFIX_ONLY: LiteralMatchMode = { bodyOptionsAnywhere: false, abbreviations: false };

/**
 * The body without its first words that are not options when those are `path`
 * (argparse: each parser takes the next such word as its sub-command and hands
 * the rest on in order), or undefined when they are not.
 */
function afterCommandWords(path: readonly string[], argv: readonly string[]): readonly string[] | undefined {
  const rest: string[] = [];
  let matched = 0;
  for (const token of argv) {
    if (matched < path.length && !isOptionLike(token)) {
      if (token !== path[matched]) return undefined;
      matched += 1;
    } else rest.push(token);
  }
  return matched === path.length ? rest : undefined;
}

/**
 * The option aliases of the call's command: for each option string, the row
 * whose command path is the longest one the call's command words start with
 * (a row without paths applies to every command). azure-cli's `group` commands
 * give `--name -n --resource-group -g` to one argument, where most commands
 * give `--name -n` and `--resource-group -g` to two.
 */
function aliasesForCall(rows: readonly CompiledOptionAliasRow[], argv: readonly string[]): OptionAliases {
  const chosen = new Map<string, { depth: number; group: readonly string[] }>();
  for (const row of rows) {
    const depths = row.commands.filter((path) => afterCommandWords(path, argv) !== undefined).map((path) => path.length);
    if (depths.length === 0) continue;
    const depth = Math.max(...depths);
    for (const name of row.group) {
      const held = chosen.get(name);
      if (held === undefined || held.depth < depth) chosen.set(name, { depth, group: row.group });
    }
  }
  return new Map([...chosen].map(([name, { group }]) => [name, group] as const));
}

function positionalsMatch(rule: readonly string[], argv: readonly string[], mode: LiteralMatchMode): boolean {
  if (!mode.bodyOptionsAnywhere) return isPrefix(rule, argv, mode.anyObject);
  const pathLength = rule.findIndex(isOptionLike);
  const path = pathLength === -1 ? rule : rule.slice(0, pathLength);
  const rest = mode.pathFromWords === true ? afterCommandWords(path, argv) : isPrefix(path, argv) ? argv.slice(path.length) : undefined;
  if (rest === undefined) return false;
  if (pathLength === -1 || mode.carried === true) return true;
  const ruleRest = rule.slice(pathLength);
  const aliases = mode.aliases === undefined || mode.aliases.length === 0 ? undefined : aliasesForCall(mode.aliases, argv);
  if (!bodyOptionsIncluded(ruleRest, rest, mode.abbreviations, aliases)) return false;
  return mode.effectiveOnly !== true || bodyOptionsEffective(ruleRest, rest, aliases);
}

/**
 * `--x` and `--no-x` set one destination (argparse's BooleanArgument pair in the AWS CLI, gcloud's `--no-` flags),
 * and so do an option's aliases (az `--name` and `-n`).
 */
function destinationSpellings(name: string, aliases?: OptionAliases): readonly string[] {
  const twins = (one: string): readonly string[] => {
    if (!one.startsWith("--")) return [one];
    const base = one.startsWith("--no-") ? one.slice(5) : one.slice(2);
    return [`--${base}`, `--no-${base}`];
  };
  return [...new Set((aliases?.get(name) ?? [name]).flatMap(twins))];
}

/**
 * Whether each body option an accept rule names is the one the command's
 * parser keeps. argparse stores the last occurrence of an option (`--acl
 * private --acl public-read-write` sends public-read-write) and the AWS CLI's
 * `--no-dry-run` resets what `--dry-run` set, so a rule naming `--acl private`
 * or `--dry-run` says nothing about a call that sets the option again after it.
 * Every spelling the body reader reads as the option or its `--no-` twin
 * counts (any prefix, `=value`, a short in a cluster: fail closed), and so
 * does every alias the provider declares (`policy.option_aliases`: az `-g rg2`
 * after `--resource-group rg1` deletes in rg2); the call may give the option
 * as many times as the rule names it, no more. An alias the provider does not
 * declare is not seen.
 */
function bodyOptionsEffective(ruleRest: readonly string[], argvRest: readonly string[], aliases?: OptionAliases): boolean {
  const named = new Map<string, number>();
  /** Each spelling the rule names (and its `--no-` twin) → its destination's key. */
  const keyOfSpelling = new Map<string, string>();
  for (const token of ruleRest) {
    if (!isOptionLike(token)) continue;
    const spellings = destinationSpellings(splitOption(token).name, aliases);
    const key = spellings.join(" ");
    named.set(key, (named.get(key) ?? 0) + 1);
    for (const spelling of spellings) keyOfSpelling.set(spelling, key);
  }
  const given = new Map<string, number>();
  for (const token of argvRest) {
    // argparse takes an exact option name before any abbreviation: `--sse` is --sse, not --sse-kms-key-id, when the rule names both.
    const exact = isOptionLike(token) ? keyOfSpelling.get(splitOption(token).name) : undefined;
    const keys = exact !== undefined ? [exact] : [...named.keys()].filter((key) => bodyOption(token, key.split(" ")) !== undefined);
    for (const key of keys) given.set(key, (given.get(key) ?? 0) + 1);
  }
  return [...named].every(([key, count]) => (given.get(key) ?? 0) <= count);
}

/**
 * A literal rule matches when its positional tokens are a whole-token prefix of
 * the argv's (`s3 ls` does not match `s3api`), every option it names is present,
 * and its `--` tail, if any, prefixes the argv's tail. For argparse CLIs the
 * command's own options in a rule (`s3 rm --recursive`) match wherever they
 * stand after the command path.
 */
export function literalMatches(rule: CanonicalArgv, view: EvaluationView, mode: LiteralMatchMode = PREFIX_ONLY): boolean {
  if (!positionalsMatch(rule.positionals, view.positionals, mode)) return false;
  if (rule.options.length > 0 && !optionsIncluded(rule.options, view.options, mode.effectiveOnly === true ? undefined : mode.scopes)) return false;
  if (mode.effectiveOnly === true && !valuedOptionsEffective(rule.options, view.options, mode.scopes)) return false;
  if (rule.hasTail && !(view.hasTail && isPrefix(rule.tail, view.tail))) return false;
  return true;
}

function ruleMatches(rule: CompiledRule, view: EvaluationView, mode: LiteralMatchMode): boolean {
  if (rule.kind === "literal") return literalMatches(rule.canonical, view, mode);
  // An exact rule names whole tokens: a call whose tokens hold spaces would join to its text from other tokens.
  if (rule.exact && !nameableTokens([...view.positionals, ...view.options, ...view.tail])) return false;
  return rule.regex.test(view.joined);
}

/**
 * Picks the reported rule among the matches independently of rule order: the
 * most specific literal, then regex rules; ties broken by text and origin.
 */
function moreSpecific(a: CompiledRule, b: CompiledRule): boolean {
  const weight = (rule: CompiledRule): number => (rule.kind === "literal" ? rule.tokenCount : -1);
  if (weight(a) !== weight(b)) return weight(a) > weight(b);
  if (a.ref.text !== b.ref.text) return a.ref.text < b.ref.text;
  return a.ref.origin < b.ref.origin;
}

/** The deciding rule of one list, or undefined when none matches. */
export function findMatch(
  index: RuleIndex,
  view: EvaluationView,
  mode: LiteralMatchMode = PREFIX_ONLY,
  admits: (rule: CompiledRule) => boolean = () => true,
): RuleRef | undefined {
  let best: CompiledRule | undefined;
  const consider = (rule: CompiledRule): void => {
    if (admits(rule) && ruleMatches(rule, view, mode) && (best === undefined || moreSpecific(rule, best))) best = rule;
  };
  const first = view.positionals[0];
  const bucket: readonly LiteralRule[] = first === undefined ? [] : (index.byFirstToken.get(first) ?? []);
  bucket.forEach(consider);
  index.optionOnly.forEach(consider);
  index.regex.forEach(consider);
  return best?.ref;
}

function describeRule(rule: RuleRef): string {
  return `${rule.list} rule ${JSON.stringify(rule.text)} (${rule.layer}, ${rule.origin})`;
}

function forbiddenIn(policy: CompiledPolicy, canonical: CanonicalArgv): string | undefined {
  // The command's own options in an argparse body may be abbreviated, glued or clustered: count any such spelling.
  const body = policy.grammar.parser === "argparse" ? commandBody(canonical) : [];
  // A carrier may set any of the command's own options: a forbidden one that is not a global option counts as present.
  if (policy.grammar.parser === "argparse" && carriesParameters(commandBody(canonical), policy.parameterCarriers)) {
    const carried = policy.forbiddenArgs.find(
      (forbidden) => forbidden.startsWith("--") && !policy.grammar.global.byLong.has(forbidden.split("=")[0] as string),
    );
    if (carried !== undefined) return carried;
  }
  for (const token of flattenCanonical(canonical)) {
    for (const forbidden of policy.forbiddenArgs) {
      if (token === forbidden || token.startsWith(`${forbidden}=`)) return forbidden;
    }
  }
  // A global option's short counts too: az and gcloud read `-rX` in a body as the command's -r and the global -X.
  const spellings = (forbidden: string): string[] => {
    const short = forbidden.includes("=") ? undefined : policy.grammar.global.byLong.get(forbidden)?.short;
    return short === undefined ? [forbidden] : [forbidden, short];
  };
  return policy.forbiddenArgs.find((forbidden) =>
    spellings(forbidden).some((spelled) => body.some((_, j) => bodyOptionSpan(spelled, [], body, j, true) !== undefined)),
  );
}

function decideUnchecked(policy: CompiledPolicy, canonical: CanonicalArgv): PolicyDecision {
  if (policy.errors.length > 0) {
    const first = policy.errors[0];
    // Named by its place, not its text (it can hold option values).
    const where = first ? `: the ${first.ref.list} rule at ${first.ref.origin} (${first.ref.layer}): ${first.message}` : "";
    return {
      result: "deny",
      source: "policy-error",
      reason: `the policy for ${policy.context.tool} has ${policy.errors.length} invalid rule(s), so every call is denied until the operator fixes it${where}`,
    };
  }
  const forbidden = forbiddenIn(policy, canonical);
  if (forbidden !== undefined) {
    return { result: "deny", source: "forbidden-arg", forbidden, reason: `${forbidden} is a forbidden argument for ${policy.context.tool}` };
  }
  const view = normaliseForEvaluation(policy, canonical);
  const argparse = policy.grammar.parser === "argparse";
  // Read before ignore_args: an ignored carrier still sets what it carries.
  const carried = argparse && carriesParameters(commandBody(canonical), policy.parameterCarriers);
  const aliases = policy.optionAliases;
  const denyMode = {
    bodyOptionsAnywhere: argparse,
    abbreviations: argparse,
    carried,
    anyObject: true,
    pathFromWords: argparse,
    scopes: policy.scopeOptions,
    aliases,
  };
  const denyOne = (candidate: EvaluationView): RuleRef | undefined =>
    findMatch(policy.deny, candidate, denyMode) ??
    denyPerResource(candidate, policy.resourceTypes, (one) => findMatch(policy.deny, one, denyMode), canonical.options);
  const denyIn = (candidate: EvaluationView): RuleRef | undefined => withCommandAliases(candidate, policy.resourceTypes, denyOne);
  // Many CLIs pass the tokens after `--` to the command as plain arguments
  // (`kubectl get -- secrets` is `kubectl get secrets`), so deny rules are also
  // matched with the tail read as positionals: a `--` never hides a denied call.
  // A release track word (`gcloud beta compute instances delete`) runs the same command as the
  // path without it: a deny rule written for one track holds in every track (deny only gains matches).
  const denyAnyTrack = (candidate: EvaluationView): RuleRef | undefined =>
    denyIn(candidate) ?? mapDefined(withoutReleaseTrack(candidate, policy.context.settings.releaseTracks), denyIn);
  const denied = denyAnyTrack(view) ?? (view.hasTail ? denyAnyTrack(tailAsPositionals(view)) : undefined);
  if (denied !== undefined) {
    return { result: "deny", source: "explicit-deny", rule: denied, reason: `denied by ${describeRule(denied)}` };
  }
  const acceptMode = { bodyOptionsAnywhere: argparse, abbreviations: false, effectiveOnly: true, scopes: policy.scopeOptions, aliases };
  // A call that writes or reads a local file is accepted only by a rule naming its command (file-writes.ts, file-reads.ts).
  const asGiven = { positionals: commandBody(canonical), options: canonical.options };
  const asEvaluated = { positionals: commandBody(view), options: view.options };
  const write: LocalWrite | FileReadHit | undefined =
    localFileWrite(policy.grammar, asGiven) ??
    localFileWrite(policy.grammar, asEvaluated) ??
    localFileRead(policy.grammar, asGiven) ??
    localFileRead(policy.grammar, asEvaluated);
  const admits = (rule: CompiledRule): boolean => write === undefined || namesFileWrite(rule, write);
  const accepted = withCommandAliases(view, policy.resourceTypes, (written) =>
    acceptPerResource(written, policy.resourceTypes, (one) => findMatch(policy.accept, one, acceptMode, admits)),
  );
  if (accepted !== undefined) {
    return { result: "accept", source: "rules", rule: accepted, reason: `accepted by ${describeRule(accepted)}` };
  }
  if (write !== undefined) {
    const fileWrite = fileWriteHold(write, flattenCanonical(canonical));
    const reason = isFileRead(write) ? fileReadReason(policy.context.tool, write) : fileWriteReason(policy.context.tool, write);
    return { result: "unresolved", source: "no-rule", reason, fileWrite };
  }
  return {
    result: "unresolved",
    source: "no-rule",
    reason: `no rule of ${policy.context.tool} accepts this call; a grant or the operator's approval is needed`,
  };
}

function failedClosed(error: unknown): PolicyDecision {
  return { result: "deny", source: "policy-error", reason: `policy evaluation failed, so the call is denied: ${(error as Error).message}` };
}

/**
 * Decides a canonical argv (the server canonicalises first, as its own step).
 * Never throws: an internal error is a deny.
 */
export function decideCanonical(policy: CompiledPolicy, canonical: CanonicalArgv): PolicyDecision {
  try {
    return decideUnchecked(policy, canonical);
  } catch (error) {
    return failedClosed(error);
  }
}

/** The decision for an argv the grammar refused. Its reason names options, never an agent's token (a value may be a secret). */
export function rejectionDecision(rejection: ArgvRejection): DenyDecision {
  if (rejection.kind === "locked-option") {
    return { result: "deny", source: "locked-option", reason: rejection.reason, option: rejection.option ?? `argument ${rejection.index}` };
  }
  if (rejection.kind === "locked-command") {
    return { result: "deny", source: "locked-command", reason: rejection.reason, command: rejection.option ?? `argument ${rejection.index}` };
  }
  return { result: "deny", source: rejection.kind, reason: rejection.reason };
}

/**
 * Evaluates an argument vector; never throws (an internal error is a deny).
 * `places` locates this call's credential stores (grammar/credential-places.ts).
 */
export function evaluatePolicy(policy: CompiledPolicy, argv: readonly string[], places?: CredentialPlaces): PolicyEvaluation {
  try {
    const result = canonicalise(argv, policy.grammar, "agent", places);
    if (!result.ok) return { decision: rejectionDecision(result.rejection) };
    const decision = decideUnchecked(policy, result.canonical);
    return { decision, canonical: result.canonical, canonicalTokens: flattenCanonical(result.canonical) };
  } catch (error) {
    return { decision: failedClosed(error) };
  }
}
