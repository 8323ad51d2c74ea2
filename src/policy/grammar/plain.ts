/**
 * The `plain` family: a CLI whose parser Torii does not model. Every token stays
 * where it is (the canonical argv is the argv), and locked options are refused
 * under every spelling some common parser would accept: `--opt=value`,
 * `_` for `-` (pflag), an abbreviation (argparse) and a single dash (Go's flag
 * package reads `-opt` as `--opt`).
 */
import { CanonicalBuilder, finish, type CanonicaliseMode } from "./canonical-builder.js";
import type { CompiledGrammar } from "./option-table.js";
import type { CanonicaliseResult } from "./types.js";

function lockedTarget(grammar: CompiledGrammar, token: string): string | undefined {
  const equals = token.indexOf("=");
  const rawName = (equals === -1 ? token : token.slice(0, equals)).replace(/^--?/u, "");
  if (rawName.length === 0) return undefined;
  const name = `--${rawName.replaceAll("_", "-")}`;
  for (const locked of grammar.locked) if (locked.startsWith(name)) return locked;
  return undefined;
}

export function canonicalisePlain(argv: readonly string[], grammar: CompiledGrammar, mode: CanonicaliseMode): CanonicaliseResult {
  return finish(() => {
    const builder = new CanonicalBuilder(grammar, mode);
    argv.forEach((token, index) => {
      builder.checkRawToken(token, index);
      if (builder.strict && token.startsWith("-") && token !== "-" && token !== "--") {
        const equals = token.indexOf("=");
        builder.checkOptionName((equals === -1 ? token : token.slice(0, equals)).replace(/^--?/u, ""), token, index);
        const locked = lockedTarget(grammar, token);
        if (locked !== undefined) builder.checkLocked(undefined, locked, token, index);
      }
      builder.positional(token, index);
    });
    return builder.built();
  });
}
