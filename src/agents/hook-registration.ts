/**
 * Registration with the shell guard (`torii agent install <client> --guard`):
 * Torii's server entry plus its pre-tool hook, in the client's own files. When
 * the hook lives in the same file as the server entry (Gemini CLI), both are
 * written in one edit, so one backup holds the operator's previous file.
 * Uninstall removes Torii's hook too, wherever the client has one.
 */
import type { ClientAdapter, HookInstaller, ToriiLaunch } from "./adapter.js";
import { sameValue, valueAt } from "./document-value.js";
import { JSON_FORMAT } from "./format.js";
import type { ConfigScope, Place } from "./place.js";
import { readConfigText } from "./config-file.js";
import {
  applyConfigEdits,
  editsOf,
  entryEdits,
  entryRemovalEdits,
  installRegistration,
  uninstallRegistration,
  type EntryOptions,
  type RegistrationChange,
} from "./registration.js";
import { isToriiGuardGroup } from "./guard/hook-installer.js";

/** What a registration changed: the server entry's file, and the hook's file when a hook was involved. */
export interface ClientChange {
  readonly server: RegistrationChange;
  readonly hook?: { readonly file: string; readonly change: RegistrationChange };
}

/** Where the hook of a registration lives. */
export interface HookSite {
  readonly installer: HookInstaller;
  readonly file: string;
}

/** The client's hook file for `scope`, when the client has a pre-tool hook. */
export function hookSiteOf(client: ClientAdapter, scope: ConfigScope, place: Place): HookSite | undefined {
  const installer = client.installHook;
  return installer === undefined ? undefined : { installer, file: installer.hookFile(scope, place) };
}

/** Writes Torii's entry into `file` and, with `hook`, Torii's guard hook into the hook's file. */
export async function registerClient(
  client: ClientAdapter,
  file: string,
  launch: ToriiLaunch,
  hook: HookSite | undefined,
  options: EntryOptions = {},
): Promise<ClientChange> {
  if (hook === undefined) return { server: await installRegistration(client, file, launch, options) };
  if (hook.file === file && client.format === "json") {
    const change = await applyConfigEdits(JSON_FORMAT, file, (parsed) => [
      ...entryEdits(client, parsed, launch, options),
      ...hook.installer.installEdits(parsed, launch),
    ]);
    return { server: change, hook: { file, change } };
  }
  await hookEditsFit(hook, (parsed) => hook.installer.installEdits(parsed, launch));
  const server = await installRegistration(client, file, launch, options);
  const change = await applyConfigEdits(JSON_FORMAT, hook.file, (parsed) => hook.installer.installEdits(parsed, launch));
  return { server, hook: { file: hook.file, change } };
}

/** Removes Torii's entry from `file` and Torii's guard hook (only Torii's) from the hook's file. */
export async function unregisterClient(client: ClientAdapter, file: string, hook: HookSite | undefined, options: EntryOptions = {}): Promise<ClientChange> {
  if (hook === undefined) return { server: await uninstallRegistration(client, file, options) };
  if (hook.file === file && client.format === "json") {
    const change = await applyConfigEdits(JSON_FORMAT, file, (parsed) => [
      ...entryRemovalEdits(client, parsed, options),
      ...hook.installer.uninstallEdits(parsed),
    ]);
    return { server: change, hook: { file, change } };
  }
  await hookEditsFit(hook, (parsed) => hook.installer.uninstallEdits(parsed));
  const server = await uninstallRegistration(client, file, options);
  const change = await applyConfigEdits(JSON_FORMAT, hook.file, (parsed) => hook.installer.uninstallEdits(parsed));
  return { server, hook: { file: hook.file, change } };
}

/**
 * Works out the hook file's edits without writing them, so that one the file refuses (a hook group Torii shares with
 * the operator's own hook, a file that does not parse) stops the command before the server entry's file is written:
 * never half a registration. @throws ConfigError as the edit itself would.
 */
async function hookEditsFit(hook: HookSite, edits: (parsed: unknown) => ReturnType<HookInstaller["uninstallEdits"]>): Promise<void> {
  const parsed = JSON_FORMAT.parse(hook.file, (await readConfigText(hook.file)).text ?? "");
  editsOf(hook.file, () => edits(parsed));
}

/** Whether Torii's guard hook is in place: `installed`, `outdated` (another Torii's paths) or `missing`. @throws ConfigError when the file does not parse. */
export async function guardStatusOf(hook: HookSite, launch: ToriiLaunch): Promise<"installed" | "outdated" | "missing"> {
  const parsed = JSON_FORMAT.parse(hook.file, (await readConfigText(hook.file)).text ?? "");
  const edits = editsOf(hook.file, () => hook.installer.installEdits(parsed, launch));
  if (edits.every((edit) => sameValue(valueAt(parsed, edit.path), edit.value))) return "installed";
  const hooks = valueAt(parsed, ["hooks"]);
  const present = typeof hooks === "object" && hooks !== null && Object.values(hooks).some((groups) => Array.isArray(groups) && groups.some(isToriiGuardGroup));
  return present ? "outdated" : "missing";
}
