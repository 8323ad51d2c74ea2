/**
 * Which providers the agent sees. A provider with `expose: false` exists only
 * to hold an identity (the `.env`, session and identity probe a kubectl_context
 * target delegates to): it is no MCP tool, the agent cannot call or query it,
 * and targets of other providers can still name it as `identity.provider`.
 */
import type { ProviderEntry, Registry } from "./registry.js";

/** The providers offered to the agent as tools, in registry order. */
export function exposedProviders(registry: Registry): ProviderEntry[] {
  return [...registry.providers.values()].filter((provider) => provider.config.expose);
}

/** The targets (`tool/alias`) that name `provider` as their identity provider. */
export function targetsUsingIdentityOf(registry: Registry, provider: ProviderEntry): string[] {
  const users: string[] = [];
  for (const owner of registry.providers.values()) {
    for (const target of owner.targets.values()) {
      if (target.config.identity.provider === provider.name) users.push(`${owner.tool}/${target.name}`);
    }
  }
  return users.sort();
}
