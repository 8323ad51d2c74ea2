/**
 * The identity side of `torii policy show`: whether the provider is an
 * identity-only provider (`expose: false`, no MCP tool) and which targets use
 * it, and for a target, which provider supplies its identity.
 */
import { targetsUsingIdentityOf } from "../../config/exposure.js";
import type { ProviderEntry, Registry } from "../../config/registry.js";

/** Comment lines (`# …`) explaining the provider's role in the identity pattern; none for an ordinary tool. */
export function identityNoteLines(registry: Registry, provider: ProviderEntry, target: string | undefined): string[] {
  const lines: string[] = [];
  if (!provider.config.expose) {
    const users = targetsUsingIdentityOf(registry, provider);
    lines.push(
      `# ${provider.tool} is an identity-only provider (expose: false): it is not an MCP tool and the agent can neither call nor query it;`,
      `# it holds the .env, session and identity check of: ${users.length === 0 ? "no target yet" : users.join(", ")}`,
      "",
    );
  }
  const identityName = target === undefined ? undefined : provider.targets.get(target)?.config.identity.provider;
  if (identityName !== undefined && identityName !== provider.name) {
    const identity = registry.providersByName.get(identityName);
    const hidden = identity !== undefined && !identity.config.expose ? " (identity-only, expose: false)" : "";
    lines.push(`# target ${String(target)} takes its identity (.env, session, identity check) from provider ${identityName}${hidden}`, "");
  }
  return lines;
}
