/**
 * The one place that says which grants would allow an unresolved call. The
 * pipeline's denial, `torii_policy`, `torii policy check` and the approval page
 * all call `suggestGrants` with the canonical argv, so they cannot suggest
 * different grants for the same call.
 */
import { flattenCanonical, type CanonicalArgv } from "./grammar/types.js";
import { shellQuote } from "./shell-quote.js";

/** A grant the operator could add so that an unresolved call is allowed. */
export interface GrantSuggestion {
  readonly mode: "exact" | "prefix";
  readonly token_count: number;
  readonly tokens: readonly string[];
  /** What the grant would allow, in words: a prefix says it also allows whatever follows. */
  readonly covers: string;
  /** The operator command that adds it. */
  readonly command: string;
}

export interface GrantSuggestions {
  readonly exact: GrantSuggestion;
  readonly prefix: GrantSuggestion;
}

const EXACT_COVERS = "exactly this canonical argv: no token added, removed or changed";

function prefixCovers(count: number): string {
  return `every argv whose first ${count} canonical token${count === 1 ? " is" : "s are"} these, whatever follows them (more arguments, options, a -- tail)`;
}

function grantCommand(tool: string, target: string | undefined, mode: string, tokens: readonly string[]): string {
  const scope = target === undefined ? tool : `${tool} ${target}`;
  return `torii grant add ${scope} ${mode} -- ${tokens.map(shellQuote).join(" ")}`;
}

/**
 * The command path: the positionals before the first option-like token. For
 * argparse the positionals keep the options Torii does not model
 * (`--instance-ids i-1`) and for `plain` every token is positional; the
 * prefix grant ends before them.
 */
function commandPathLength(positionals: readonly string[]): number {
  const first = positionals.findIndex((token) => token.startsWith("-") && token !== "-");
  return first === -1 ? positionals.length : first;
}

/**
 * The narrowest grants for an unresolved call: the exact canonical argv, and a
 * prefix ending at the command path (at least one token, and at least
 * `minimumPrefix`: a file write's hold, file-write-hold.ts), as Torii's
 * approval window suggests.
 */
export function suggestGrants(tool: string, target: string | undefined, canonical: CanonicalArgv, minimumPrefix = 1): GrantSuggestions {
  const tokens = flattenCanonical(canonical);
  const prefixCount = Math.max(1, Math.min(Math.max(commandPathLength(canonical.positionals), minimumPrefix), tokens.length));
  const prefixTokens = tokens.slice(0, prefixCount);
  return {
    exact: { mode: "exact", token_count: tokens.length, tokens, covers: EXACT_COVERS, command: grantCommand(tool, target, "--exact", tokens) },
    prefix: {
      mode: "prefix",
      token_count: prefixCount,
      tokens: prefixTokens,
      covers: prefixCovers(prefixCount),
      command: grantCommand(tool, target, `--prefix ${prefixCount}`, prefixTokens),
    },
  };
}
