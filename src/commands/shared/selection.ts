/**
 * Finding a provider and one of its targets by the names an operator types,
 * with errors that list what does exist.
 */
import { loadProviderSubset, loadRegistry, type ProviderEntry, type Registry, type TargetEntry } from "../../config/registry.js";
import { configRoot, OperatorError } from "./operator-context.js";

/** The registry under the configuration root in force (a ConfigError reports every problem, exit 3). */
export function loadOperatorRegistry(): Registry {
  return loadRegistry(configRoot());
}

/**
 * What a command about provider `tool` alone needs: that provider and the
 * identity providers of its targets (registry.ts, `loadProviderSubset`), or the
 * whole registry when the provider's directory is not named after its tool.
 */
export function loadOperatorProvider(tool: string): Registry {
  const root = configRoot();
  return loadProviderSubset(root, tool) ?? loadRegistry(root);
}

/** The provider whose MCP tool name is `tool`. */
export function findProvider(registry: Registry, tool: string): ProviderEntry {
  const provider = registry.providers.get(tool);
  if (provider === undefined) {
    const known = [...registry.providers.keys()].sort().join(", ") || "none installed";
    throw new OperatorError(`unknown provider tool ${JSON.stringify(tool)} (installed: ${known})`);
  }
  return provider;
}

/** The target `alias` of `provider`. */
export function findTarget(provider: ProviderEntry, alias: string): TargetEntry {
  const entry = provider.targets.get(alias);
  if (entry === undefined) {
    const known = [...provider.targets.keys()].sort().join(", ") || "none configured";
    throw new OperatorError(`${provider.tool} has no target ${JSON.stringify(alias)} (targets: ${known})`);
  }
  return entry;
}

/** The provider, refused unless it has a `targeting.mode` (only those have targets and leases). */
export function findTargetAwareProvider(registry: Registry, tool: string): ProviderEntry {
  const provider = findProvider(registry, tool);
  if (!provider.targetAware) {
    throw new OperatorError(`${tool} takes no target: its provider.yaml (${provider.file}) has no targeting.mode`);
  }
  return provider;
}
