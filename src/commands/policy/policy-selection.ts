/**
 * Finds a provider (and optionally one of its targets) by the names an operator
 * types, and loads the rules in force for it, fresh from disk.
 */
import { loadProviderPolicy } from "../../config/registry.js";
import type { LayeredRuleSpecs, ProviderPolicyContext } from "../../policy/types.js";
import { findProvider, findTarget, loadOperatorRegistry } from "../shared/selection.js";

export interface PolicySelection {
  readonly context: ProviderPolicyContext;
  readonly rules: LayeredRuleSpecs;
  readonly sharedRulesPath: string;
  /** The target's own rules file, when the target has one. */
  readonly targetRulesPath?: string;
}

export function loadPolicyFor(tool: string, target: string | undefined): PolicySelection {
  const provider = findProvider(loadOperatorRegistry(), tool);
  const targetRulesPath = target === undefined ? undefined : findTarget(provider, target).rulesPath;
  const { context, rules } = loadProviderPolicy(provider, target);
  return {
    context,
    rules,
    sharedRulesPath: provider.rulesPath,
    ...(rules.target !== undefined && targetRulesPath !== undefined ? { targetRulesPath } : {}),
  };
}
