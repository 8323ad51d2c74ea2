/**
 * Entry point of the argv grammars: one canonical spelling per invocation.
 */
import type { CanonicaliseMode } from "./canonical-builder.js";
import { canonicaliseArgparse } from "./argparse.js";
import { credentialPlaceIn, type CredentialPlaces } from "./credential-places.js";
import type { CompiledGrammar } from "./option-table.js";
import { canonicalisePflag } from "./pflag.js";
import { canonicalisePlain } from "./plain.js";
import type { ArgvRejection, CanonicaliseResult } from "./types.js";

export type { CanonicaliseMode } from "./canonical-builder.js";

/**
 * Canonicalises `argv` under the provider's grammar. In `agent` mode the argv
 * is checked strictly and the first problem is returned as a rejection; the
 * canonical argv is what rules see and what the launcher spawns. With `places`
 * (where this call's credential stores are), an agent's token that points
 * inside or above one is refused, whatever the rules, and before any other
 * rejection; a token the grammar proves is read on another machine (the
 * `kubectl exec` tail, `get --raw`: GrammarSpec.remoteArguments) is not a
 * local path and is left out.
 */
export function canonicalise(
  argv: readonly string[],
  grammar: CompiledGrammar,
  mode: CanonicaliseMode = "agent",
  places?: CredentialPlaces,
): CanonicaliseResult {
  const parsed = parse(argv, grammar, mode);
  if (mode !== "agent" || places === undefined) return parsed;
  // Only an argv the grammar read whole can prove an argument remote; otherwise every token is checked.
  const remote = new Set(parsed.ok ? (parsed.remoteArguments ?? []) : []);
  const reached = credentialPlaceRejection(argv, places, remote);
  return reached === undefined ? parsed : { ok: false, rejection: reached };
}

function parse(argv: readonly string[], grammar: CompiledGrammar, mode: CanonicaliseMode): CanonicaliseResult {
  switch (grammar.parser) {
    case "pflag":
      return canonicalisePflag(argv, grammar, mode);
    case "argparse":
      return canonicaliseArgparse(argv, grammar, mode);
    case "plain":
      return canonicalisePlain(argv, grammar, mode);
  }
}

/** The first token that reaches a credential store by where it points, as a rejection that names the place but not the token. */
function credentialPlaceRejection(argv: readonly string[], places: CredentialPlaces, remote: ReadonlySet<number>): ArgvRejection | undefined {
  for (const [index, token] of argv.entries()) {
    if (remote.has(index)) continue;
    const place = credentialPlaceIn(token, places);
    if (place !== undefined) {
      return { kind: "forbidden-value", token, index, reason: `argument ${index} points at ${place}; Torii never lets a CLI read or write there` };
    }
  }
  return undefined;
}
