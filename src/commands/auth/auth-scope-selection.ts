/**
 * Which stored session an `torii auth` command means: the one a call to
 * `<tool> [target]` would use (pipeline/auth-scope.ts), refused unless its
 * identity provider collects credentials (`auth.strategy: environment`).
 */
import type { ProviderEntry, Registry, TargetEntry } from "../../config/registry.js";
import { authScopeOf, type AuthScope } from "../../pipeline/auth-scope.js";
import { auditScope } from "../shared/operator-audit.js";
import { OperatorError } from "../shared/operator-context.js";
import { findProvider, findTarget } from "../shared/selection.js";

export interface SessionSelection {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry | undefined;
  readonly scope: AuthScope;
  /** `tool` or `tool/target`, as the server's audit writes it. */
  readonly auditScope: string;
}

/** Whether calls with this scope use stored credentials. */
export function collectsCredentials(scope: AuthScope): boolean {
  return scope.identity.config.auth?.strategy === "environment";
}

/** The session of calls to `tool` (on `target`). */
export function selectSession(registry: Registry, tool: string, target: string | undefined): SessionSelection {
  const provider = findProvider(registry, tool);
  if (target !== undefined && !provider.targetAware) throw new OperatorError(`${tool} takes no target: leave out ${JSON.stringify(target)}`);
  if (target === undefined && provider.targetAware) {
    const known = [...provider.targets.keys()].sort().join(", ") || "none configured";
    throw new OperatorError(`${tool} needs a target: torii auth … ${tool} <target> (targets: ${known})`);
  }
  const entry = target === undefined ? undefined : findTarget(provider, target);
  const scope = authScopeOf(provider, entry, registry);
  if (!collectsCredentials(scope)) {
    const strategy = scope.identity.config.auth?.strategy ?? "inherited";
    throw new OperatorError(
      `${scope.identity.name} uses the ${strategy} auth strategy: Torii stores no credentials for it; log in with the CLI's own login instead`,
    );
  }
  return { provider, target: entry, scope, auditScope: auditScope(tool, target) };
}

/** Every (tool, target) whose calls use stored credentials, in name order. */
export function allSessionSelections(registry: Registry): SessionSelection[] {
  const selections: SessionSelection[] = [];
  for (const provider of [...registry.providers.values()].sort((a, b) => a.tool.localeCompare(b.tool))) {
    const targets = provider.targetAware ? [...provider.targets.values()].sort((a, b) => a.name.localeCompare(b.name)) : [undefined];
    for (const target of targets) {
      const scope = authScopeOf(provider, target, registry);
      if (collectsCredentials(scope)) selections.push({ provider, target, scope, auditScope: auditScope(provider.tool, target?.name) });
    }
  }
  return selections;
}
