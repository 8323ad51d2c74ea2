/**
 * Finds a provider (and optionally one of its targets) by the names an operator
 * types, and loads the rules in force for it, fresh from disk, through the
 * server's own loader (PolicyCache), so the CLI and the server cannot read a
 * policy differently.
 */
import type { ProviderEntry, Registry } from "../../config/registry.js";
import type { CompiledPolicy } from "../../policy/compile.js";
import { PolicyCache } from "../../pipeline/policy-cache.js";
import { findProvider, findTarget, loadOperatorRegistry } from "../shared/selection.js";

export interface PolicySelection {
  readonly policy: CompiledPolicy;
  readonly sharedRulesPath: string;
  /** The target's own rules file, when the target has one. */
  readonly targetRulesPath?: string;
  readonly registry: Registry;
  readonly provider: ProviderEntry;
}

export function loadPolicyFor(tool: string, target: string | undefined): PolicySelection {
  const registry = loadOperatorRegistry();
  const provider = findProvider(registry, tool);
  const targetRulesPath = target === undefined ? undefined : findTarget(provider, target).rulesPath;
  const { policy, rules } = new PolicyCache().load(provider, target);
  return {
    policy,
    registry,
    provider,
    sharedRulesPath: provider.rulesPath,
    ...(rules.target !== undefined && targetRulesPath !== undefined ? { targetRulesPath } : {}),
  };
}
