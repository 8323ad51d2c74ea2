/**
 * fast-check arbitraries for the policy properties: argv drawn from each test
 * grammar's option table (every spelling family, valid or not), rule texts,
 * layered rule sets, and abstract invocations rendered in random spellings
 * together with the canonical argv they must produce (an oracle written from
 * docs/policy.md, independent of the parser models).
 */
import fc from "fast-check";
import type { GrammarSpec, OptionSpec } from "../../src/policy/grammar/types.js";
import type { LayeredRuleSpecs, ProviderPolicySettings, RuleListSpec } from "../../src/policy/types.js";
import { AWS_LOCKED, awsSpec, azSpec, KUBECTL_LOCKED, kubectlSpec, plainSpec } from "./grammars.js";

export type GrammarName = "kubectl" | "aws" | "az" | "plain";

export const GRAMMARS: Record<GrammarName, { spec: GrammarSpec; locked: readonly string[] }> = {
  kubectl: { spec: kubectlSpec, locked: KUBECTL_LOCKED },
  aws: { spec: awsSpec, locked: AWS_LOCKED },
  az: { spec: azSpec, locked: ["--subscription"] },
  plain: { spec: plainSpec, locked: ["--context", "--kubeconfig"] },
};

export const GRAMMAR_NAMES: readonly GrammarName[] = ["kubectl", "aws", "az", "plain"];

/** Words: command paths, operands and values, none dash-leading, none with whitespace. */
export const WORDS = [
  "get",
  "pods",
  "logs",
  "web",
  "exec",
  "apply",
  "rollout",
  "status",
  "secrets",
  "config",
  "view",
  "describe",
  "x",
  "kube-system",
  "s3",
  "ls",
  "ec2",
  "describe-instances",
  "vm",
  "list",
  "sh",
  "app=web",
  "json",
  "i-1",
] as const;

const VALUES = ["x", "kube-system", "json", "app=web", "a.yaml", "5", "web", "i-1"] as const;

/** Operation options an argparse CLI passes on (unknown to the global table, no prefix of a known name). */
export const UNKNOWN_ARGPARSE_OPTIONS = ["--instance-ids", "--filters", "--max-items", "--bucket", "--key"] as const;

const underscored = (name: string): string => `--${name.slice(2).replaceAll("-", "_")}`;

/** Tokens for arbitrary argv: every spelling family of every option, plus words and odd tokens. */
function tokenPool(name: GrammarName): string[] {
  const { spec, locked } = GRAMMARS[name];
  const options = [...spec.options, ...spec.commands.flatMap((scope) => scope.options)];
  const tokens = new Set<string>([...WORDS, "--", "-", "-1", "--foo=bar", "--foo", "-Z", "file://x", "@x", "a=file://y"]);
  for (const option of options) {
    tokens.add(option.name);
    tokens.add(`${option.name}=x`);
    tokens.add(`${option.name}=false`);
    tokens.add(underscored(option.name));
    tokens.add(option.name.slice(0, Math.max(3, option.name.length - 3)));
    if (option.short !== undefined) {
      tokens.add(option.short);
      tokens.add(`${option.short}x`);
      tokens.add(`${option.short}=x`);
    }
  }
  for (const option of locked) tokens.add(`${option}=x`);
  if (name === "kubectl") for (const cluster of ["-Aw", "-Ao", "-Aojson", "-fc", "-it", "-Ashttps://x"]) tokens.add(cluster);
  if (name === "az") for (const cluster of ["-ho", "-hojson", "-hh"]) tokens.add(cluster);
  for (const unknown of UNKNOWN_ARGPARSE_OPTIONS) tokens.add(unknown);
  return [...tokens].sort();
}

/** An argv of 0–8 tokens from the grammar's token pool (many are rejected, many are not). */
export function argvArb(name: GrammarName): fc.Arbitrary<string[]> {
  return fc.array(fc.constantFrom(...tokenPool(name)), { maxLength: 8 });
}

/** Valid regex rules. */
export const REGEX_RULES = ["/pods/", "/^get/", "/--namespace=kube-system/", "/SECRET/i", "/ls$/", "/--output=json/", "/x/", "/web -- sh/"] as const;
/** Rules that do not compile, in every grammar. */
export const INVALID_RULES = ["/(/", "/a/g", "/a/u", "//", "/ /x", "/x/ii", "   ", "get \0"] as const;

function literalPool(name: GrammarName): string[] {
  const { spec } = GRAMMARS[name];
  const options = [...spec.options, ...spec.commands.flatMap((scope) => scope.options)].filter((option) => !GRAMMARS[name].locked.includes(option.name));
  const tokens = new Set<string>(WORDS);
  for (const option of options) {
    tokens.add(option.name);
    if (option.value !== "none") tokens.add(`${option.name}=x`);
    if (option.short !== undefined && option.value === "none") tokens.add(option.short);
  }
  tokens.add("--");
  return [...tokens].sort();
}

/** A valid rule text: a literal of 1–4 tokens or a regex. */
export function ruleTextArb(name: GrammarName): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(fc.constantFrom(...literalPool(name)), { minLength: 1, maxLength: 4 }).map((tokens) => tokens.join(" ")) },
    { weight: 1, arbitrary: fc.constantFrom(...REGEX_RULES) },
  );
}

export interface RuleTexts {
  readonly deny: readonly string[];
  readonly accept: readonly string[];
}

export interface LayeredTexts {
  readonly shared: RuleTexts;
  readonly target?: RuleTexts;
}

export function ruleTextsArb(name: GrammarName, maxLength = 5): fc.Arbitrary<RuleTexts> {
  return fc.record({ deny: fc.array(ruleTextArb(name), { maxLength }), accept: fc.array(ruleTextArb(name), { maxLength }) });
}

export function layeredTextsArb(name: GrammarName): fc.Arbitrary<LayeredTexts> {
  return fc
    .record({ shared: ruleTextsArb(name), target: fc.option(ruleTextsArb(name), { nil: undefined }) })
    .map((layers) => (layers.target === undefined ? { shared: layers.shared } : { shared: layers.shared, target: layers.target }));
}

/**
 * Layered rules for an argv, some derived from the argv itself (a prefix of its
 * tokens, as accept and sometimes as deny) so that rules match often enough for
 * the properties to reach the rule-deciding branches.
 */
export function layeredTextsForArgv(name: GrammarName, argv: readonly string[]): fc.Arbitrary<LayeredTexts> {
  const prefix = (cut: number): string => argv.slice(0, 1 + (cut % Math.max(1, argv.length))).join(" ");
  return fc
    .record({
      drawn: layeredTextsArb(name),
      accepts: fc.array(fc.nat(), { maxLength: 2 }),
      deny: fc.option(fc.nat(), { freq: 3, nil: undefined }),
      intoTarget: fc.boolean(),
    })
    .map(({ drawn, accepts, deny, intoTarget }) => {
      if (argv.length === 0 || argv.some((token) => token.trim() === "")) return drawn;
      const layer = intoTarget && drawn.target !== undefined ? "target" : "shared";
      const list = drawn[layer] ?? { deny: [], accept: [] };
      const extended = {
        deny: deny === undefined ? list.deny : [...list.deny, prefix(deny)],
        accept: [...list.accept, ...accepts.map(prefix)],
      };
      return { ...drawn, [layer]: extended };
    });
}

/** Attaches origins `<layer>.<list>:<n>` (assigned once, so shuffling keeps each rule's origin). */
export function withOrigins(texts: LayeredTexts): LayeredRuleSpecs {
  const list = (layer: string, t: RuleTexts): RuleListSpec => ({
    deny: t.deny.map((text, i) => ({ text, origin: `${layer}.deny:${String(i + 1)}` })),
    accept: t.accept.map((text, i) => ({ text, origin: `${layer}.accept:${String(i + 1)}` })),
  });
  const shared = list("shared", texts.shared);
  return texts.target === undefined ? { shared } : { shared, target: list("target", texts.target) };
}

/** Provider settings; `withIgnore: false` keeps ignore_args empty. */
export function settingsArb(name: GrammarName, withIgnore = true): fc.Arbitrary<ProviderPolicySettings> {
  const optionNames = GRAMMARS[name].spec.options.map((option) => option.name);
  const forbiddenPool = ["delete", "secrets", ...optionNames.slice(0, 3)];
  return fc.record({
    minimumAcceptTokens: fc.integer({ min: 0, max: 3 }),
    forbiddenArgs: fc.subarray(forbiddenPool, { maxLength: 2 }),
    ignoreArgs: withIgnore
      ? fc.record({
          leading: fc.subarray(["alpha", "get", "s3"], { maxLength: 2 }),
          flags: fc.subarray(optionNames, { maxLength: Math.min(2, optionNames.length) }),
        })
      : fc.constant({ leading: [], flags: [] }),
  });
}

// ---------------------------------------------------------------------------
// Abstract invocations and their spellings (P5)
// ---------------------------------------------------------------------------

/** One option occurrence: its spec and its canonical value (`undefined`: a true switch or a bare optional). */
export interface Occurrence {
  readonly spec: OptionSpec;
  readonly value: string | undefined;
  /** Global (may be written before the command path) or command-local. */
  readonly global: boolean;
}

export interface Invocation {
  /** pflag: the command path; argparse: the body tokens (words and operation options), in order. */
  readonly head: readonly string[];
  /** pflag only: operands after the command path. */
  readonly operands: readonly string[];
  readonly occurrences: readonly Occurrence[];
  readonly tail: readonly string[] | undefined;
  /** Locked options among the occurrences. */
  readonly locked: readonly string[];
}

function canonicalToken(occurrence: Occurrence): string {
  return occurrence.value === undefined ? occurrence.spec.name : `${occurrence.spec.name}=${occurrence.value}`;
}

/** The canonical argv an invocation must produce: positionals, options sorted stably by name, `--` tail. */
export function expectedCanonical(invocation: Invocation): string[] {
  const options = invocation.occurrences
    .map((occurrence, i) => ({ name: occurrence.spec.name, token: canonicalToken(occurrence), i }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.i - b.i))
    .map((entry) => entry.token);
  const tokens = [...invocation.head, ...invocation.operands, ...options];
  if (invocation.tail !== undefined) tokens.push("--", ...invocation.tail);
  return tokens;
}

type Gen = fc.GeneratorValue;

function occurrencesFor(g: Gen, options: readonly OptionSpec[], global: (option: OptionSpec) => boolean, pflag: boolean): Occurrence[] {
  const chosen = g(fc.subarray, [...options], { maxLength: Math.min(5, options.length) });
  const result: Occurrence[] = [];
  for (const spec of chosen) {
    const count = spec.repeatable ? g(fc.integer, { min: 1, max: 3 }) : 1;
    for (let n = 0; n < count; n += 1) {
      let value: string | undefined;
      if (spec.value === "required") value = g(() => fc.constantFrom(...VALUES));
      else if (spec.value === "optional") value = g(fc.option, fc.constantFrom(...VALUES), { nil: undefined });
      else value = pflag && g(fc.boolean) ? "false" : undefined;
      result.push({ spec, value, global: global(spec) });
    }
  }
  return result;
}

/** A kubectl invocation: a command path (scoped or not), operands, options of that scope, maybe a tail. */
export function pflagInvocation(g: Gen, includeLocked: boolean): Invocation {
  const spec = kubectlSpec;
  const scopes = [...spec.commands.map((scope) => scope.path), ["describe"], ["version"]];
  const path = g(() => fc.constantFrom(...scopes));
  const scope = spec.commands.find((candidate) => candidate.path.join(" ") === path.join(" "));
  const lockedOk = (option: OptionSpec): boolean => includeLocked || !KUBECTL_LOCKED.includes(option.name);
  const globals = spec.options.filter(lockedOk);
  const locals = (scope?.options ?? []).filter(lockedOk);
  const globalNames = new Set(globals.map((option) => option.name));
  const occurrences = occurrencesFor(g, [...globals, ...locals], (option) => globalNames.has(option.name), true);
  const operands = g(fc.array, fc.constantFrom(...WORDS), { maxLength: 2 });
  const tail = g(fc.option, fc.array(fc.constantFrom(...WORDS, "-c", "--server=x", "-n"), { maxLength: 3 }), { nil: undefined });
  const locked = occurrences.map((o) => o.spec.name).filter((name) => KUBECTL_LOCKED.includes(name));
  return { head: path, operands, occurrences, tail: tail ?? undefined, locked };
}

const TRUE_SPELLINGS = ["true", "1", "t", "T", "TRUE", "True"] as const;
const FALSE_SPELLINGS = ["false", "0", "f", "F", "FALSE", "False"] as const;

function pflagLongName(g: Gen, name: string): string {
  // `_` and `-` are equal in pflag long names: replace each inner dash at random.
  const body = name.slice(2).split("-");
  return `--${body.reduce((acc, part) => `${acc}${g(fc.boolean) ? "_" : "-"}${part}`)}`;
}

/** Renders one occurrence in a random pflag spelling; `clusterLetter` is set when it may join a short cluster. */
function renderPflag(g: Gen, occurrence: Occurrence): { tokens: string[]; clusterLetter?: string; clusterRest?: string[] } {
  const { spec, value } = occurrence;
  const short = spec.short !== undefined && g(fc.boolean) ? spec.short : undefined;
  if (spec.value === "none") {
    const truth = value === undefined;
    if (short !== undefined) {
      if (truth && g(fc.boolean)) return { tokens: [short], clusterLetter: short.slice(1), clusterRest: [] };
      return { tokens: [`${short}=${g(fc.constantFrom, ...(truth ? TRUE_SPELLINGS : FALSE_SPELLINGS))}`] };
    }
    const name = pflagLongName(g, spec.name);
    if (truth && g(fc.boolean)) return { tokens: [name] };
    return { tokens: [`${name}=${g(fc.constantFrom, ...(truth ? TRUE_SPELLINGS : FALSE_SPELLINGS))}`] };
  }
  if (spec.value === "optional" || value === undefined) {
    const name = pflagLongName(g, spec.name);
    return { tokens: [value === undefined ? name : `${name}=${value}`] };
  }
  if (short !== undefined) {
    const style = g(fc.integer, { min: 0, max: 2 });
    const letter = short.slice(1);
    if (style === 0) return { tokens: [short, value], clusterLetter: letter, clusterRest: [value] };
    if (style === 1) return { tokens: [`${short}${value}`], clusterLetter: `${letter}${value}`, clusterRest: [] };
    return { tokens: [`${short}=${value}`], clusterLetter: `${letter}=${value}`, clusterRest: [] };
  }
  const name = pflagLongName(g, spec.name);
  return g(fc.boolean) ? { tokens: [`${name}=${value}`] } : { tokens: [name, value] };
}

/**
 * Renders a pflag invocation: globals anywhere (also before or inside the command
 * path), command-local options after the path, runs of short switches merged
 * into clusters (ending, maybe, with a value-taking short), repeats kept in order.
 */
export function renderPflagInvocation(g: Gen, invocation: Invocation): string[] {
  const positionals = [...invocation.head, ...invocation.operands];
  const pathLength = invocation.head.length;
  const slots = invocation.occurrences.map((occurrence, index) => ({
    index,
    name: occurrence.spec.name,
    at: occurrence.global ? g(fc.integer, { min: 0, max: positionals.length }) : g(fc.integer, { min: pathLength, max: positionals.length }),
  }));
  slots.sort((a, b) => a.at - b.at || a.index - b.index);
  // Repeats of one option must keep their relative order (pflag appends, and the
  // canonical argv keeps it): the k-th written repeat takes the k-th occurrence.
  const queues = new Map<string, Occurrence[]>();
  for (const occurrence of invocation.occurrences) queues.set(occurrence.spec.name, [...(queues.get(occurrence.spec.name) ?? []), occurrence]);
  const out: string[] = [];
  let cluster: { letters: string; rest: string[] } | undefined;
  const flush = (): void => {
    if (cluster !== undefined) out.push(`-${cluster.letters}`, ...cluster.rest);
    cluster = undefined;
  };
  for (let slot = 0; slot <= positionals.length; slot += 1) {
    for (const placed of slots.filter((item) => item.at === slot)) {
      const occurrence = (queues.get(placed.name) as Occurrence[]).shift() as Occurrence;
      const rendered = renderPflag(g, occurrence);
      if (rendered.clusterLetter !== undefined && g(fc.boolean)) {
        // Join the open cluster (it holds only switches) or open one.
        cluster = { letters: (cluster?.letters ?? "") + rendered.clusterLetter, rest: rendered.clusterRest ?? [] };
        // A value-taking letter ends the cluster.
        if (occurrence.spec.value !== "none") flush();
        continue;
      }
      flush();
      out.push(...rendered.tokens);
    }
    flush();
    const positional = positionals[slot];
    if (positional !== undefined) out.push(positional);
  }
  if (invocation.tail !== undefined) out.push("--", ...invocation.tail);
  return out;
}

/** Every unambiguous prefix (at least `--x`) of a long name in a table, and the name itself. */
export function unambiguousPrefixes(name: string, longNames: readonly string[]): string[] {
  const prefixes: string[] = [];
  for (let length = 3; length <= name.length; length += 1) {
    const prefix = name.slice(0, length);
    if (prefix === name || longNames.filter((long) => long.startsWith(prefix)).length === 1) prefixes.push(prefix);
  }
  return prefixes;
}

/**
 * An aws or az invocation: a body of words and operation options, global options,
 * maybe a tail (az only: the AWS CLI drops `--`, see the P5d property).
 */
export function argparseInvocation(g: Gen, name: "aws" | "az", includeLocked: boolean): Invocation {
  const { spec, locked } = GRAMMARS[name];
  const items = g(
    fc.array,
    fc.oneof(
      fc.constantFrom(...WORDS).map((word) => [word]),
      fc.tuple(fc.constantFrom(...UNKNOWN_ARGPARSE_OPTIONS), fc.constantFrom(...VALUES)).map(([option, value]) => [option, value]),
    ),
    { minLength: 1, maxLength: 4 },
  );
  const options = spec.options.filter((option) => includeLocked || !locked.includes(option.name));
  const occurrences = occurrencesFor(g, options, () => true, false);
  const tail =
    spec.doubleDash === "ignored" ? undefined : g(fc.option, fc.array(fc.constantFrom(...WORDS, "--profile=x", "-o"), { maxLength: 3 }), { nil: undefined });
  return {
    head: items.flat(),
    operands: [],
    occurrences,
    tail: tail ?? undefined,
    locked: occurrences.map((o) => o.spec.name).filter((option) => locked.includes(option)),
  };
}

/**
 * Renders an argparse invocation: each global option as any unambiguous prefix,
 * `=` or separate value, a short alias (`-o v`, `-ov`, `-o=v`) or a cluster of
 * boolean shorts ending with one (`-hov`); placed between body items anywhere.
 */
export function renderArgparseInvocation(g: Gen, name: "aws" | "az", invocation: Invocation, bodyItems: readonly (readonly string[])[]): string[] {
  const { spec } = GRAMMARS[name];
  const longNames = spec.options.map((option) => option.name);
  const slots: string[][][] = Array.from({ length: bodyItems.length + 1 }, () => []);
  let pendingSwitchShorts = "";
  for (const occurrence of invocation.occurrences) {
    const { spec: option, value } = occurrence;
    const slot = g(fc.integer, { min: 0, max: bodyItems.length });
    const useShort = option.short !== undefined && g(fc.boolean);
    let tokens: string[];
    if (useShort) {
      const letter = (option.short ?? "").slice(1);
      if (option.value === "none") {
        // Boolean shorts may be held back and prefixed to a later short (`-h` + `-ojson` = `-hojson`).
        if (g(fc.boolean)) {
          pendingSwitchShorts += letter;
          continue;
        }
        tokens = [`-${letter}`];
      } else {
        // `=` is dropped only for a token's first option, so a cluster is never written `-ho=v`.
        const style = g(fc.integer, { min: 0, max: pendingSwitchShorts === "" ? 2 : 1 });
        const head = `-${pendingSwitchShorts}${letter}`;
        pendingSwitchShorts = "";
        tokens = style === 0 ? [head, value as string] : style === 1 ? [`${head}${value as string}`] : [`${head}=${value as string}`];
      }
    } else {
      const written = g(() => fc.constantFrom(...unambiguousPrefixes(option.name, longNames)));
      if (option.value === "none") tokens = [written];
      else tokens = g(fc.boolean) ? [`${written}=${value as string}`] : [written, value as string];
    }
    (slots[slot] as string[][]).push(tokens);
  }
  if (pendingSwitchShorts !== "") (slots[bodyItems.length] as string[][]).push([`-${pendingSwitchShorts}`]);
  const out: string[] = [];
  bodyItems.forEach((item, i) => {
    for (const tokens of slots[i] as string[][]) out.push(...tokens);
    out.push(...item);
  });
  for (const tokens of slots[bodyItems.length] as string[][]) out.push(...tokens);
  if (invocation.tail !== undefined) out.push("--", ...invocation.tail);
  return out;
}

/** Splits an argparse invocation's body back into items (an operation option with its value is one item). */
export function bodyItems(invocation: Invocation): string[][] {
  const items: string[][] = [];
  for (let i = 0; i < invocation.head.length; i += 1) {
    const token = invocation.head[i] as string;
    if (token.startsWith("--")) {
      items.push([token, invocation.head[i + 1] as string]);
      i += 1;
    } else {
      items.push([token]);
    }
  }
  return items;
}

/**
 * fast-check parameters for a policy property: a fixed seed, `runs` runs, and
 * the whole run bounded (a failing property may shrink for long; an
 * interruption counts as a failure).
 */
export function propertyParams(seed: number, runs: number): fc.Parameters<unknown> {
  return { seed, numRuns: runs, plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })] };
}
