/**
 * Finds a provider (and optionally one of its targets) by the names an operator
 * types, and loads the rules in force for it, fresh from disk.
 */
import { loadProviderPolicy, loadRegistry } from "../config/registry.js";
import type { LayeredRuleSpecs, ProviderPolicyContext } from "../policy/types.js";
import { configRoot, OperatorError } from "./operator-context.js";

export interface PolicySelection {
  readonly context: ProviderPolicyContext;
  readonly rules: LayeredRuleSpecs;
  readonly sharedRulesPath: string;
  /** The target's own rules file, when the target has one. */
  readonly targetRulesPath?: string;
}

export function loadPolicyFor(tool: string, target: string | undefined): PolicySelection {
  const registry = loadRegistry(configRoot());
  const provider = registry.providers.get(tool);
  if (provider === undefined) {
    const known = [...registry.providers.keys()].sort().join(", ") || "none installed";
    throw new OperatorError(`unknown provider tool ${JSON.stringify(tool)} (installed: ${known})`);
  }
  let targetRulesPath: string | undefined;
  if (target !== undefined) {
    const entry = provider.targets.get(target);
    if (entry === undefined) {
      const known = [...provider.targets.keys()].sort().join(", ") || "none configured";
      throw new OperatorError(`${tool} has no target ${JSON.stringify(target)} (targets: ${known})`);
    }
    targetRulesPath = entry.rulesPath;
  }
  const { context, rules } = loadProviderPolicy(provider, target);
  return {
    context,
    rules,
    sharedRulesPath: provider.rulesPath,
    ...(rules.target !== undefined && targetRulesPath !== undefined ? { targetRulesPath } : {}),
  };
}
