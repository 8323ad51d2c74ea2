/**
 * Entry point of the argv grammars: one canonical spelling per invocation.
 */
import type { CanonicaliseMode } from "./canonical-builder.js";
import { canonicaliseArgparse } from "./argparse.js";
import type { CompiledGrammar } from "./option-table.js";
import { canonicalisePflag } from "./pflag.js";
import { canonicalisePlain } from "./plain.js";
import type { CanonicaliseResult } from "./types.js";

export type { CanonicaliseMode } from "./canonical-builder.js";

/**
 * Canonicalises `argv` under the provider's grammar. In `agent` mode the argv
 * is checked strictly and the first problem is returned as a rejection; the
 * canonical argv is what rules see and what the launcher spawns.
 */
export function canonicalise(argv: readonly string[], grammar: CompiledGrammar, mode: CanonicaliseMode = "agent"): CanonicaliseResult {
  switch (grammar.parser) {
    case "pflag":
      return canonicalisePflag(argv, grammar, mode);
    case "argparse":
      return canonicaliseArgparse(argv, grammar, mode);
    case "plain":
      return canonicalisePlain(argv, grammar, mode);
  }
}
