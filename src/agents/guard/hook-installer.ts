/**
 * The `HookInstaller` of a client with a pre-tool hook: merges the fragment
 * `guardHookConfig` builds into the client's hook file without touching the
 * operator's other hooks. Torii's own hook group is recognised by its command
 * line starting Torii's `guard --client`, so a moved Torii (other node or
 * entry path) is rewritten in place, and uninstall removes only Torii's group.
 */
import { EditRefusedError, type HookInstaller, type JsonEdit, type ToriiLaunch } from "../adapter.js";
import { valueAt } from "../document-value.js";
import type { ConfigScope, Place } from "../place.js";
import { toriiArguments } from "../entry-owner.js";
import { guardHookConfig } from "./hook-config.js";
import { readShellCommands } from "./shell-reader.js";
import type { GuardClient } from "./hook-protocols.js";

/** The fields a client runs as a hook's shell line (Copilot CLI has one per shell). */
const COMMAND_FIELDS = new Set(["command", "bash", "powershell"]);

/** Every command line in `value` (a group or one hook, any client's shape). */
function commandLines(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(commandLines);
  return Object.entries(value).flatMap(([key, inner]) => (COMMAND_FIELDS.has(key) && typeof inner === "string" ? [inner] : commandLines(inner)));
}

/** Whether `line` is one command that starts `torii guard --client …` (entry-owner.ts: node and Torii's cli.js, or Torii's bin). */
function startsToriiGuard(line: string): boolean {
  let commands;
  try {
    commands = readShellCommands(line);
  } catch {
    return false;
  }
  const [only] = commands;
  if (commands.length !== 1 || only === undefined) return false;
  const rest = toriiArguments(only.words.map((word) => word.text));
  return rest?.[0] === "guard" && rest[1] === "--client";
}

/**
 * Whether a hook group (any client's shape), or one hook of a group, is the one
 * Torii installs: a command line in it starts Torii's guard. Not merely a text
 * holding "guard --client": the operator's own `my-tool guard --client x` is
 * theirs, and Torii neither replaces nor removes it.
 */
export function isToriiGuardGroup(group: unknown): boolean {
  return commandLines(group).some(startsToriiGuard);
}

/**
 * Refuses when a group holding Torii's guard also holds a hook of the
 * operator's (a client's hook editor adds a hook for the same matcher to the
 * group already there): replacing or removing the group would delete that hook.
 */
function refuseSharedGroups(groups: readonly unknown[], event: string): void {
  groups.forEach((group, index) => {
    const inner = (group as { hooks?: unknown } | null)?.hooks;
    if (!isToriiGuardGroup(group) || !Array.isArray(inner)) return;
    const others = (inner as unknown[]).filter((hook) => !isToriiGuardGroup(hook)).length;
    if (others === 0) return;
    throw new EditRefusedError(
      `hooks.${event}[${index}] holds Torii's guard hook and ${others} other hook(s); Torii does not rewrite a group it shares and left this file as it was: ` +
        "move your hooks to a group of their own (or remove Torii's by hand), then run the command again",
    );
  });
}

function arrayAt(root: unknown, path: readonly string[]): unknown[] {
  const value = valueAt(root, path);
  return Array.isArray(value) ? (value as unknown[]) : [];
}

/** Removals of every Torii group of `event` after index `after`, highest index first (so earlier indices stay valid). */
function removalsAfter(groups: readonly unknown[], event: string, after: number): JsonEdit[] {
  return groups.flatMap((group, index) => (index > after && isToriiGuardGroup(group) ? [{ path: ["hooks", event, index], value: undefined }] : [])).reverse();
}

/**
 * The edits that put `ours` into `hooks.<event>`, one element at a time so the
 * operator's groups keep their bytes: Torii's group replaced in place (its
 * duplicates removed) or appended (index -1). A missing array is written whole.
 */
function groupEdits(current: unknown, event: string, ours: readonly unknown[]): JsonEdit[] {
  const existing = valueAt(current, ["hooks", event]);
  if (!Array.isArray(existing)) return [{ path: ["hooks", event], value: ours }];
  const groups = existing as unknown[];
  refuseSharedGroups(groups, event);
  const at = groups.findIndex(isToriiGuardGroup);
  if (at === -1) return ours.map((group) => ({ path: ["hooks", event, -1], value: group }));
  const [first, ...more] = ours;
  return [
    ...removalsAfter(groups, event, at),
    { path: ["hooks", event, at], value: first },
    ...more.map((group) => ({ path: ["hooks", event, -1], value: group })),
  ];
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
      const edits: JsonEdit[] = Object.entries(hooks).flatMap(([event, ours]) => groupEdits(current, event, ours));
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
        refuseSharedGroups(groups, event);
        // Only Torii's groups: the event goes; otherwise each of them goes alone, the operator's keep their bytes.
        return groups.every(isToriiGuardGroup) ? [{ path: ["hooks", event], value: undefined }] : removalsAfter(groups, event, -1);
      });
    },
  };
}
