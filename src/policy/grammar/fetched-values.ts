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
 * - kubectl `--filename` (`urlOptions`): a `http(s)://` anywhere in the value,
 *   since pflag splits it as CSV (`-f a.yaml,https://…`).
 * - kustomize targets (`gitOptions`, `gitOperandsOf`): what kustomize clones.
 */
import type { ArgvRejection, FetchedValueSpec, LiteralUrlParameter } from "./types.js";

export interface CompiledFetchedValues {
  readonly everyValue: boolean;
  readonly urlOptions: ReadonlySet<string>;
  readonly gitOptions: ReadonlySet<string>;
  readonly gitOperandsOf: readonly (readonly string[])[];
  /** Literal parameters by option name. */
  readonly literal: ReadonlyMap<string, readonly LiteralUrlParameter[]>;
}

/** One token of the agent's argv as the parser sorted it. */
export interface SitedToken {
  readonly token: string;
  readonly index: number;
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

const NONE: CompiledFetchedValues = {
  everyValue: false,
  urlOptions: new Set(),
  gitOptions: new Set(),
  gitOperandsOf: [],
  literal: new Map(),
};

/** Compiles the provider's `fetched_values` for lookups. */
export function compileFetchedValues(spec: FetchedValueSpec | undefined): CompiledFetchedValues {
  if (spec === undefined) return NONE;
  const literal = new Map<string, LiteralUrlParameter[]>();
  for (const parameter of spec.literal) literal.set(parameter.option, [...(literal.get(parameter.option) ?? []), parameter]);
  return {
    everyValue: spec.urlOptions.includes("*"),
    urlOptions: new Set(spec.urlOptions.filter((name) => name !== "*")),
    gitOptions: new Set(spec.gitOptions),
    gitOperandsOf: spec.gitOperandsOf,
    literal,
  };
}

/** `http://` or `https://` at the start, in any case, after blanks. */
export function startsWithUrl(value: string): boolean {
  const lower = value.trimStart().toLowerCase();
  return lower.startsWith("http://") || lower.startsWith("https://");
}

/**
 * Shorthand `Key@=value` asks the CLI to load the value (v1 and v2 load only
 * file:// and fileb://, refused elsewhere); a URL there is never plain data.
 */
function loadsUrlInShorthand(value: string): boolean {
  return /@=\s*https?:\/\//iu.test(value);
}

function containsUrl(value: string): boolean {
  const lower = value.toLowerCase();
  return lower.includes("http://") || lower.includes("https://");
}

/**
 * A target kustomize 5.5 would clone instead of reading a local directory: a
 * `scheme://` URL, `user@host:` / `git@host/`, `github.com/…` (any case). Torii
 * also refuses `::` and `gh:` forms near them; local paths rarely hold `@` or `:`.
 */
export function isRemoteGitTarget(value: string): boolean {
  const lower = value.trim().toLowerCase();
  return (
    lower.includes("://") ||
    lower.includes("@") ||
    lower.includes("::") ||
    lower.startsWith("gh:") ||
    /^(www\.)?github\.com([/:]|$)/u.test(lower)
  );
}

/** `http://host:port/…`: enough to name the URL without echoing a path or query that may hold a token. */
function shortUrl(value: string): string {
  const match = /[a-z][a-z0-9+.-]*:\/\/[^/?#\s,]*/iu.exec(value);
  if (match === null) return "a remote target";
  return match.index + match[0].length < value.trimEnd().length ? `${match[0]}/…` : match[0];
}

function rejection(site: SitedToken, value: string, option: string | undefined, what: string): ArgvRejection {
  const where = option === undefined ? `argument ${site.index}` : `the value of ${option} (argument ${site.index})`;
  const reason = `${where} is ${shortUrl(value)}: ${what}; Torii refuses values the CLI would fetch`;
  return option === undefined
    ? { kind: "forbidden-value", token: site.token, index: site.index, reason }
    : { kind: "forbidden-value", token: site.token, index: site.index, reason, option };
}

const DOWNLOAD = "the CLI would download it and return the body";
const CLONE = "kustomize would clone it";

function isLiteral(fetched: CompiledFetchedValues, option: string, commandWords: readonly string[]): LiteralUrlParameter | undefined {
  return fetched.literal
    .get(option)
    ?.find((parameter) => parameter.command.every((word, i) => commandWords[i] === word));
}

/**
 * AWS CLI v1: every operand and operation-option value in the body. A value is
 * literal only right after the full name of a literal parameter (`--queue-url X`,
 * `--queue-url=X`), or for a list parameter, anywhere up to the next option.
 */
function checkEveryValue(fetched: CompiledFetchedValues, argv: CollectedArgv): ArgvRejection | undefined {
  const commandWords: string[] = [];
  for (const site of argv.positionals) {
    if (site.token.startsWith("-")) break;
    commandWords.push(site.token);
  }
  // The option a following separate value belongs to, and whether it still applies.
  let pending: { name: string; literal: LiteralUrlParameter | undefined; taken: number } | undefined;
  for (const site of argv.positionals) {
    const token = site.token;
    if (token.startsWith("-")) {
      const equals = token.indexOf("=");
      const name = equals === -1 ? token : token.slice(0, equals);
      const literal = isLiteral(fetched, name, commandWords);
      if (equals !== -1) {
        const value = token.slice(equals + 1);
        if ((startsWithUrl(value) && literal === undefined) || loadsUrlInShorthand(value)) return rejection(site, value, name, DOWNLOAD);
        pending = undefined;
      } else {
        pending = { name, literal, taken: 0 };
      }
      continue;
    }
    const exempt = pending?.literal !== undefined && (pending.taken === 0 || pending.literal.list);
    if ((startsWithUrl(token) && !exempt) || loadsUrlInShorthand(token)) return rejection(site, token, pending?.name, DOWNLOAD);
    if (pending !== undefined) pending.taken += 1;
  }
  for (const option of argv.options) {
    if (option.value !== undefined && startsWithUrl(option.value)) {
      return rejection({ token: option.value, index: option.index }, option.value, option.name, DOWNLOAD);
    }
  }
  const urlInTail = argv.tail.find((site) => startsWithUrl(site.token));
  return urlInTail === undefined ? undefined : rejection(urlInTail, urlInTail.token, undefined, DOWNLOAD);
}

function checkOperands(fetched: CompiledFetchedValues, argv: CollectedArgv): ArgvRejection | undefined {
  const words = argv.positionals.map((site) => site.token);
  const path = fetched.gitOperandsOf.find((command) => command.every((word, i) => words[i] === word));
  if (path === undefined) return undefined;
  const operands = [...argv.positionals.slice(path.length), ...argv.tail];
  const remote = operands.find((site) => isRemoteGitTarget(site.token));
  return remote === undefined ? undefined : rejection(remote, remote.token, undefined, CLONE);
}

/** The first value the CLI would download or clone, as a rejection; undefined when there is none. */
export function findFetchedValue(fetched: CompiledFetchedValues, argv: CollectedArgv): ArgvRejection | undefined {
  if (fetched.everyValue) {
    const found = checkEveryValue(fetched, argv);
    if (found !== undefined) return found;
  }
  for (const option of argv.options) {
    const value = option.value;
    if (value === undefined) continue;
    const site = { token: value, index: option.index };
    if (fetched.urlOptions.has(option.name) && containsUrl(value)) return rejection(site, value, option.name, DOWNLOAD);
    if (fetched.gitOptions.has(option.name) && isRemoteGitTarget(value)) return rejection(site, value, option.name, CLONE);
  }
  return checkOperands(fetched, argv);
}
