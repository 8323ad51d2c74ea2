/**
 * Small helpers for the policy unit tests: canonicalise-or-fail, reject-or-fail,
 * and rule lists with stable origins.
 */
import { fileURLToPath } from "node:url";
import { providerPolicyContext } from "../../src/config/policy-context.js";
import { loadProviderDocument, type ProviderConfig } from "../../src/config/provider-schema.js";
import { canonicalise, type CanonicaliseMode } from "../../src/policy/grammar/canonicalise.js";
import type { CompiledGrammar } from "../../src/policy/grammar/option-table.js";
import { flattenCanonical, type ArgvRejection, type CanonicalArgv } from "../../src/policy/grammar/types.js";
import type { ProviderPolicyContext, RuleListSpec, RuleSpec } from "../../src/policy/types.js";

/** The canonical argv, or an Error naming the rejection. */
export function canonicalOf(grammar: CompiledGrammar, argv: readonly string[], mode: CanonicaliseMode = "agent"): CanonicalArgv {
  const result = canonicalise(argv, grammar, mode);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(argv)} to be accepted, got ${result.rejection.kind}: ${result.rejection.reason}`);
  return result.canonical;
}

/** The flattened canonical argv (what rules see and the launcher spawns). */
export function canon(grammar: CompiledGrammar, argv: readonly string[], mode: CanonicaliseMode = "agent"): string[] {
  return flattenCanonical(canonicalOf(grammar, argv, mode));
}

/** The rejection, or an Error when the argv was accepted. */
export function rejectionOf(grammar: CompiledGrammar, argv: readonly string[], mode: CanonicaliseMode = "agent"): ArgvRejection {
  const result = canonicalise(argv, grammar, mode);
  if (result.ok) throw new Error(`expected ${JSON.stringify(argv)} to be rejected, got ${JSON.stringify(flattenCanonical(result.canonical))}`);
  return result.rejection;
}

export function specs(texts: readonly string[], prefix: string): RuleSpec[] {
  return texts.map((text, index) => ({ text, origin: `${prefix}:${index + 1}` }));
}

/** A rules.yaml with origins `<name>.deny:<n>` / `<name>.accept:<n>`. */
export function ruleList(deny: readonly string[] = [], accept: readonly string[] = [], name = "shared"): RuleListSpec {
  return { deny: specs(deny, `${name}.deny`), accept: specs(accept, `${name}.accept`) };
}

/**
 * A bundled provider's validated providers/<name>/provider.yaml, read as the server reads it: from
 * provider.generated.json while that was made from exactly this YAML text (which
 * test/unit/config/provider-json.test.ts checks), so a test does not parse a large option table
 * as YAML (hundreds of milliseconds each). A fresh object on each call: a test may change it.
 */
export function bundledProviderConfig(name: string): ProviderConfig {
  return loadProviderDocument(fileURLToPath(new URL(`../../providers/${name}/provider.yaml`, import.meta.url))).value;
}

/** The policy context of a bundled provider (providers/<name>/provider.yaml), as the server builds it. */
export function bundledPolicyContext(name: string): ProviderPolicyContext {
  return providerPolicyContext(bundledProviderConfig(name));
}

/** A policy context with some of its settings replaced. */
export function withSettings(context: ProviderPolicyContext, settings: Partial<ProviderPolicyContext["settings"]>): ProviderPolicyContext {
  return { ...context, settings: { ...context.settings, ...settings } };
}
