/**
 * The `HookInstaller` of a client with a pre-tool hook: merges the fragment
 * `guardHookConfig` builds into the client's hook file without touching the
 * operator's other hooks. Torii's own hook group is recognised by the
 * `guard --client` words of its command line, so a moved Torii (other node or
 * entry path) is rewritten in place, and uninstall removes only Torii's group.
 */
import type { HookInstaller, JsonEdit, ToriiLaunch } from "../adapter.js";
import { valueAt } from "../document-value.js";
import type { ConfigScope, Place } from "../place.js";
import { guardHookConfig } from "./hook-config.js";
import type { GuardClient } from "./hook-protocols.js";

/** Whether a hook group (any client's shape) is the one Torii installs. */
export function isToriiGuardGroup(group: unknown): boolean {
  return JSON.stringify(group ?? null).includes(" guard --client ");
}

function arrayAt(root: unknown, path: readonly string[]): unknown[] {
  const value = valueAt(root, path);
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** `existing` with Torii's group replaced in place by `ours` (or appended when absent), duplicates of it dropped. */
function mergedGroups(existing: readonly unknown[], ours: readonly unknown[]): unknown[] {
  const at = existing.findIndex(isToriiGuardGroup);
  if (at === -1) return [...existing, ...ours];
  return existing.flatMap((group, index) => (index === at ? [...ours] : isToriiGuardGroup(group) ? [] : [group]));
}

/** The hook installer for `client`, whose hook file for a scope is `hookFile`. */
export function guardHookInstaller(client: GuardClient, hookFile: (scope: ConfigScope, place: Place) => string): HookInstaller {
  return {
    hookFile,
    installEdits(current: unknown, launch: ToriiLaunch): readonly JsonEdit[] {
      const fragment = guardHookConfig(client, {
        node: launch.node,
        toriiEntry: launch.cli,
        configDir: launch.configRoot,
        windows: process.platform === "win32",
      });
      const hooks = fragment.hooks as Record<string, unknown[]>;
      const edits: JsonEdit[] = Object.entries(hooks).map(([event, ours]) => ({
        path: ["hooks", event],
        value: mergedGroups(arrayAt(current, ["hooks", event]), ours),
      }));
      // A file format version the client needs (Cursor, Copilot CLI); an operator's own value is kept.
      if (fragment.version !== undefined && valueAt(current, ["version"]) === undefined) edits.push({ path: ["version"], value: fragment.version });
      return edits;
    },
    uninstallEdits(current: unknown): readonly JsonEdit[] {
      const hooks = valueAt(current, ["hooks"]);
      if (typeof hooks !== "object" || hooks === null) return [];
      return Object.keys(hooks).flatMap((event) => {
        const groups = arrayAt(current, ["hooks", event]);
        if (!groups.some(isToriiGuardGroup)) return [];
        const kept = groups.filter((group) => !isToriiGuardGroup(group));
        return [{ path: ["hooks", event], value: kept.length === 0 ? undefined : kept }];
      });
    },
  };
}
