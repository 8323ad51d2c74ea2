/**
 * The policy context of a bundled provider (providers/<name>/provider.yaml), as
 * the registry builds it: its grammar, locked options and settings.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { effectiveLockedOptions } from "../../src/config/locked-floor.js";
import { providerFileSchema, toGrammarSpec, toPolicySettings } from "../../src/config/provider-schema.js";
import type { ProviderPolicyContext } from "../../src/policy/types.js";

/** The bundled provider `name`'s policy context. */
export function bundledContext(name: string): ProviderPolicyContext {
  const file = fileURLToPath(new URL(`../../providers/${name}/provider.yaml`, import.meta.url));
  const config = providerFileSchema.parse(parse(readFileSync(file, "utf8")));
  return { tool: name, grammar: toGrammarSpec(config), lockedOptions: effectiveLockedOptions(config), settings: toPolicySettings(config) };
}
