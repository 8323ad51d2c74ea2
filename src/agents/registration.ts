/**
 * Registering Torii with one client: install (idempotent), uninstall (only
 * Torii's entry and the settings Torii owns) and status (registered, missing,
 * or outdated with the reasons). A file that does not parse is never
 * rewritten: the ConfigError names file:line:col.
 */
import { existsSync } from "node:fs";
import { EditRefusedError, type ClientAdapter, type JsonEdit, type ToriiLaunch } from "./adapter.js";
import { ConfigError } from "../config/errors.js";
import { readConfigText, replaceConfigText } from "./config-file.js";
import { sameValue, valueAt } from "./document-value.js";
import { foreignProgram, withoutSecrets } from "./entry-owner.js";
import { formatOf, type DocumentFormat } from "./format.js";
import { launchTextProblems } from "./launch-text.js";
import { agentFolders, launchProblems, type LaunchTrustOptions } from "./launch-trust.js";
import { entryRootInReach } from "./entry-root.js";
import { otherToriiInstall, reinstallHint } from "./other-install.js";
import { visibleJson } from "../runtime/display-text.js";

/** A field's value for a reason: its JSON, every character outside printable ASCII escaped; "absent" when unset. */
function shown(value: unknown): string {
  return value === undefined ? "absent" : visibleJson(value);
}

/**
 * What `status` finds for a client; `unknown` when a file the client also reads in this folder cannot be read,
 * `blocked` when the client will not start the entry at all (a managed file takes exclusive control: shadowing.ts),
 * `unsafe` when an entry's configuration root is the agent's to rewrite (entry-root.ts).
 */
export type RegistrationState = "registered" | "missing" | "outdated" | "foreign" | "unsafe" | "blocked" | "unknown";

export interface RegistrationStatus {
  readonly state: RegistrationState;
  /** Why an entry is outdated: the fields that differ, and paths that no longer exist. */
  readonly reasons: readonly string[];
}

/** What `install` or `uninstall` did. */
export interface RegistrationChange {
  readonly changed: boolean;
  /** The previous content's copy, when a file was replaced. */
  readonly backup: string | undefined;
}

/** The paths an entry starts (command and arguments) that are absolute and missing on this machine. */
function missingPaths(entry: unknown): string[] {
  const record = (entry ?? {}) as { command?: unknown; args?: unknown };
  const listed = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
  const words = [record.command, ...listed(record.command), ...listed(record.args)];
  return words.filter((word): word is string => typeof word === "string" && /^([/\\]|[A-Za-z]:[/\\])/u.test(word) && !existsSync(word));
}

/**
 * Compares the entry in a parsed file with the one `install` would write: an
 * entry that starts another program is `foreign` (entry-owner.ts), and one equal
 * to this Torii's is `registered` only while the code it starts can be changed
 * by nobody else (launch-trust.ts, with `trust`'s options).
 */
export function statusOf(client: ClientAdapter, parsed: unknown, launch: ToriiLaunch, trust: LaunchTrustOptions = {}): RegistrationStatus {
  const current = valueAt(parsed, client.entryPath);
  if (current === undefined) return { state: "missing", reasons: [] };
  const foreign = foreignProgram(current);
  if (foreign !== undefined) return { state: "foreign", reasons: [`the entry named ${client.entryPath.at(-1) ?? ""} runs ${foreign}, which is not Torii`] };
  // Whichever Torii it starts, an agent that can rewrite the rules it serves governs itself.
  const reach = entryRootInReach(current, agentFolders(trust));
  if (reach !== undefined) return { state: "unsafe", reasons: [reach] };
  const other = otherToriiInstall(current, launch);
  const expected = client.entry(launch);
  const differing = Object.keys({ ...expected, ...(current as object) }).filter((key) => !sameValue((current as Record<string, unknown>)[key], expected[key]));
  // Its fields as messages show them: a header's value may be a token (withoutSecrets); its environment is only
  // TORII_CONFIG_DIR (any other variable made it foreign above), whose value says which root it serves.
  const { env, environment } = current as Record<string, unknown>;
  const displayed: Record<string, unknown> = { ...(withoutSecrets(current) as Record<string, unknown>), env, environment };
  const pending = (client.ownedEdits?.(parsed, "install") ?? []).filter((edit) => !sameValue(valueAt(parsed, edit.path), edit.value));
  const reasons = [
    ...(other === undefined ? [] : [`it starts ${other}; ${reinstallHint(client.id, launch, trust.projectRoot !== undefined)}`]),
    ...missingPaths(current).map((missing) => `${missing} does not exist (moved?)`),
    // The values, not only the key: an entry starting another dist/cli.js or another configuration root says which.
    ...differing.map((key) => `${key} is ${shown(displayed[key])}, this Torii's is ${shown(expected[key])}`),
    ...pending.map((edit) => {
      const value = valueAt(parsed, edit.path);
      return value === undefined ? `${edit.path.join(".")} is not set` : `${edit.path.join(".")} is ${shown(value)}, Torii's is ${shown(edit.value)}`;
    }),
  ];
  if (reasons.length === 0) {
    reasons.push(...launchTextProblems(launch), ...launchProblems(launch, trust).map((problem) => `the code it starts can be changed by others: ${problem}`));
  }
  return reasons.length === 0 ? { state: "registered", reasons } : { state: "outdated", reasons };
}

/** The status of Torii's entry in `file`. @throws ConfigError when the file does not parse. */
export async function inspectRegistration(
  client: ClientAdapter,
  file: string,
  launch: ToriiLaunch,
  trust: LaunchTrustOptions = {},
): Promise<RegistrationStatus> {
  return statusOf(client, formatOf(client).parse(file, (await readConfigText(file)).text ?? ""), launch, trust);
}

/**
 * Applies the edits `edits` computes from the parsed file, keeping everything
 * else, with a backup and an atomic write; writes nothing when every edit is
 * already in place. Used for the server entry and for hook files.
 *
 * @throws ConfigError when the file does not parse (it is left untouched).
 */
export async function applyConfigEdits(
  format: DocumentFormat,
  file: string,
  edits: (parsed: Record<string, unknown>) => readonly JsonEdit[],
): Promise<RegistrationChange> {
  const current = await readConfigText(file);
  const parsed = format.parse(file, current.text ?? "");
  const needed = editsOf(file, () => edits(parsed)).filter((edit) => !sameValue(valueAt(parsed, edit.path), edit.value));
  if (needed.length === 0) return { changed: false, backup: undefined };
  const text = format.edit(file, current.text ?? "", needed);
  return { changed: true, backup: await replaceConfigText(current, text) };
}

/** How an edit treats an entry under Torii's name that starts another program. */
export interface EntryOptions {
  /** Replace (install) or remove (uninstall) it anyway: the operator said so (`--force`). */
  readonly force?: boolean;
}

/** @throws EditRefusedError when the entry under Torii's name starts another program and `force` is not set. */
function refuseForeignEntry(client: ClientAdapter, parsed: unknown, action: "install" | "uninstall", options: EntryOptions): void {
  const current = valueAt(parsed, client.entryPath);
  const foreign = current === undefined || options.force === true ? undefined : foreignProgram(current);
  if (foreign === undefined) return;
  const verb = action === "install" ? "replace" : "remove";
  throw new EditRefusedError(
    `${client.entryPath.join(".")} is not Torii's entry: it runs ${foreign}; Torii does not ${verb} another program's entry (check where it came from, then remove it by hand or run again with --force to ${verb} it)`,
  );
}

/** The edits that write (or rewrite) Torii's entry, and the settings Torii owns, into the parsed file. @throws EditRefusedError for another program's entry. */
export function entryEdits(client: ClientAdapter, parsed: unknown, launch: ToriiLaunch, options: EntryOptions = {}): readonly JsonEdit[] {
  refuseForeignEntry(client, parsed, "install", options);
  return [{ path: client.entryPath, value: client.entry(launch) }, ...(client.ownedEdits?.(parsed, "install") ?? [])];
}

/** The edits that remove Torii's entry and the settings Torii owns from the parsed file. @throws EditRefusedError for another program's entry. */
export function entryRemovalEdits(client: ClientAdapter, parsed: unknown, options: EntryOptions = {}): readonly JsonEdit[] {
  refuseForeignEntry(client, parsed, "uninstall", options);
  return [{ path: client.entryPath, value: undefined }, ...(client.ownedEdits?.(parsed, "uninstall") ?? [])];
}

/** `compute()`, with a refusal turned into a ConfigError naming `file`. */
export function editsOf(file: string, compute: () => readonly JsonEdit[]): readonly JsonEdit[] {
  try {
    return compute();
  } catch (error) {
    if (error instanceof EditRefusedError) throw new ConfigError(file, error.message);
    throw error;
  }
}

/** Writes (or rewrites) Torii's entry into `file`; a no-op when it is already up to date. */
export function installRegistration(client: ClientAdapter, file: string, launch: ToriiLaunch, options: EntryOptions = {}): Promise<RegistrationChange> {
  return applyConfigEdits(formatOf(client), file, (parsed) => entryEdits(client, parsed, launch, options));
}

/** Removes Torii's entry (and the settings Torii owns) from `file`; a no-op when there is none. */
export function uninstallRegistration(client: ClientAdapter, file: string, options: EntryOptions = {}): Promise<RegistrationChange> {
  return applyConfigEdits(formatOf(client), file, (parsed) => entryRemovalEdits(client, parsed, options));
}
