/**
 * `torii agent install|uninstall|status`: the operator side of src/agents/.
 * Each command resolves the client's file (its usual place for the scope, or
 * `--config`), then installs, removes or inspects Torii's entry there.
 */
import os from "node:os";
import path from "node:path";
import type { ClientAdapter } from "../../agents/adapter.js";
import { CLIENTS, clientById } from "../../agents/clients.js";
import type { ConfigScope, Place } from "../../agents/place.js";
import { guardStatusOf, hookSiteOf, registerClient, unregisterClient, type ClientChange, type HookSite } from "../../agents/hook-registration.js";
import { chosenConfigFile } from "../../agents/config-choice.js";
import { resolveConfigTarget } from "../../agents/config-target.js";
import type { ToriiLaunch } from "../../agents/adapter.js";
import { agentFolders, launchProblems, registrationTrust, type LaunchTrustOptions } from "../../agents/launch-trust.js";
import { launchTextProblems } from "../../agents/launch-text.js";
import { inspectRegistration, type RegistrationStatus } from "../../agents/registration.js";
import { otherEntrySites, shadowingStatus, worseState } from "../../agents/shadowing.js";
import { policyStatus } from "../../agents/server-policy.js";
import { currentLaunch } from "../../agents/torii-launch.js";
import { ConfigError } from "../../config/errors.js";
import { emit as emitRaw } from "../shared/operator-output.js";
import { configRoot, OperatorError, visibleMessage } from "../shared/operator-context.js";
import { operatorTrustedDirectories } from "../shared/operator-path-trust.js";

/**
 * Prints the report: the human lines with every character that does not show on screen escaped, since they quote
 * client files and reasons read from them (a cloned project's), which a terminal would otherwise act on.
 */
function emit(options: AgentOptions, value: object, lines: readonly string[]): void {
  emitRaw(
    options,
    value,
    lines.map((line) => visibleMessage(line)),
  );
}

/** The options of every `agent` subcommand. */
export interface AgentOptions {
  readonly scope?: string;
  readonly config?: string;
  readonly json?: boolean;
  /** Also install (or, for status, require) the shell guard's pre-tool hook. */
  readonly guard?: boolean;
  /** Replace (install) or remove (uninstall) an entry under Torii's name that starts another program. */
  readonly force?: boolean;
}

function currentPlace(): Place {
  return { platform: process.platform, env: process.env, home: os.homedir(), cwd: process.cwd() };
}

function clientOrFail(id: string): ClientAdapter {
  const client = clientById(id);
  if (client === undefined) throw new OperatorError(`unknown client ${JSON.stringify(id)}; known clients: ${CLIENTS.map((known) => known.id).join(", ")}`);
  return client;
}

/** The file to edit for `client`: `--config`, or the client's file for the scope. */
function targetFile(client: ClientAdapter, options: AgentOptions): { file: string; scope: ConfigScope } {
  const scope = (options.scope ?? client.scopes[0]) as ConfigScope;
  if (!client.scopes.includes(scope)) {
    throw new OperatorError(`${client.title} has no ${JSON.stringify(options.scope)} scope; use --scope ${client.scopes.join(" or --scope ")}`);
  }
  if (options.config !== undefined) return { file: path.resolve(options.config), scope };
  return { file: chosenConfigFile(client, scope, currentPlace()), scope };
}

/**
 * The file a write goes to: `file` with its links followed; for the project
 * scope, refused when a link leads out of the project folder.
 */
function writtenFile(file: string, scope: ConfigScope): Promise<string> {
  return resolveConfigTarget(file, scope === "project" ? currentPlace().cwd : undefined);
}

/** `hook` with its file resolved as `writtenFile` does. */
async function writtenHook(hook: HookSite | undefined, scope: ConfigScope): Promise<HookSite | undefined> {
  return hook === undefined ? undefined : { ...hook, file: await writtenFile(hook.file, scope) };
}

/** The clients whose pre-tool hook Torii can register. */
function guardClients(): string {
  return CLIENTS.filter((known) => known.installHook !== undefined)
    .map((known) => known.id)
    .join(", ");
}

/** The hook the command works on: `--guard`'s (refused for a client without a hook), or, for uninstall, any the client has. */
function hookFor(client: ClientAdapter, scope: ConfigScope, wanted: boolean): HookSite | undefined {
  const site = hookSiteOf(client, scope, currentPlace());
  if (wanted && site === undefined) throw new OperatorError(`${client.title} has no pre-tool hook Torii can register; --guard works with: ${guardClients()}`);
  return site;
}

/** The lines and JSON fields that report a change of the server entry and, when one was involved, of the hook. */
function reportChange(file: string, change: ClientChange, said: { changed: string; unchanged: string; hook: string }): string[] {
  const lines = [change.server.changed ? said.changed : said.unchanged];
  if (change.hook !== undefined && change.hook.file !== file)
    lines.push(`${change.hook.change.changed ? said.hook : "guard hook unchanged"} in ${change.hook.file}`);
  else if (change.hook?.change.changed === true && !change.server.changed) lines.push(`${said.hook} in ${file}`);
  for (const backup of new Set([change.server.backup, change.hook?.change.backup])) if (backup !== undefined) lines.push(`previous content kept in ${backup}`);
  return lines;
}

function changeJson(client: ClientAdapter, scope: ConfigScope, file: string, change: ClientChange): Record<string, unknown> {
  const hook = change.hook === undefined ? null : { file: change.hook.file, changed: change.hook.change.changed, backup: change.hook.change.backup ?? null };
  return { client: client.id, scope, file, changed: change.server.changed, backup: change.server.backup ?? null, guard: hook };
}

/**
 * What the launch's code is checked against: the operator's trusted
 * directories, the folder this runs from (the agent's, whatever the scope:
 * launch-trust.ts), and for a project's file the project.
 */
function launchTrust(scope: ConfigScope): LaunchTrustOptions {
  return registrationTrust(scope, currentPlace(), operatorTrustedDirectories());
}

/**
 * This Torii's launch, when a client may be told to start it.
 *
 * @throws OperatorError when its paths would be read otherwise by a client (launch-text.ts) or its code can be changed by others (launch-trust.ts).
 */
function registrableLaunch(scope: ConfigScope): ToriiLaunch {
  const launch = currentLaunch(configRoot());
  const problems = [...launchTextProblems(launch), ...launchProblems(launch, launchTrust(scope))];
  if (problems.length > 0) {
    throw new OperatorError(
      `not registering this Torii, nothing was written:\n  ${problems.join("\n  ")}\n` +
        "(a folder whose group write is intended, such as Homebrew's user:admin /usr/local, can be listed in settings.yaml's path.trusted_directories)",
    );
  }
  return launch;
}

export async function runAgentInstall(id: string, options: AgentOptions): Promise<number> {
  const client = clientOrFail(id);
  const { file: given, scope } = targetFile(client, options);
  const launch = registrableLaunch(scope);
  const file = await writtenFile(given, scope);
  const hook = await writtenHook(options.guard === true ? hookFor(client, scope, true) : undefined, scope);
  const change = await registerClient(client, file, launch, hook, { force: options.force === true });
  const lines = reportChange(file, change, {
    changed: `registered Torii with ${client.title} in ${file}`,
    unchanged: `Torii is already registered with ${client.title} in ${file}`,
    hook: "installed the shell guard (torii guard) as its pre-tool hook",
  });
  // Written, yet the client may start another entry under Torii's name in this folder: say so, and exit 1.
  const shadow = options.config === undefined ? await besides(client, scope, launch) : undefined;
  const warnings = shadow?.reasons.map((reason) => `warning: ${reason}`) ?? [];
  emit(options, { ...changeJson(client, scope, file, change), shadowed_by: shadow?.reasons ?? [] }, [...lines, ...warnings]);
  return shadow === undefined ? 0 : 1;
}

export async function runAgentUninstall(id: string, options: AgentOptions): Promise<number> {
  const client = clientOrFail(id);
  const { file: given, scope } = targetFile(client, options);
  const file = await writtenFile(given, scope);
  const change = await unregisterClient(client, file, await writtenHook(hookFor(client, scope, options.guard === true), scope), {
    force: options.force === true,
  });
  const lines = reportChange(file, change, {
    changed: `removed Torii from ${client.title} (${file})`,
    unchanged: `Torii is not registered with ${client.title} in ${file}; nothing to remove`,
    hook: "removed the shell guard's hook",
  });
  emit(options, changeJson(client, scope, file, change), lines);
  return 0;
}

interface StatusRow {
  readonly client: string;
  readonly scope: ConfigScope;
  readonly file: string;
  readonly state: string;
  readonly reasons: readonly string[];
  /** The shell guard's hook, for clients that have one: installed, outdated, missing or unreadable. */
  readonly guard: string | null;
}

async function guardState(client: ClientAdapter, scope: ConfigScope): Promise<string | null> {
  const site = hookSiteOf(client, scope, currentPlace());
  if (site === undefined) return null;
  try {
    return await guardStatusOf(site, currentLaunch(configRoot()));
  } catch (error) {
    if (error instanceof ConfigError) return "unreadable";
    throw error;
  }
}

/**
 * What decides, besides the file checked, what the client starts under Torii's name in this folder: the other
 * places it reads (shadowing.ts) and its administrator's policy (server-policy.ts); undefined when nothing does.
 */
async function besides(client: ClientAdapter, scope: ConfigScope, launch: ToriiLaunch): Promise<RegistrationStatus | undefined> {
  const found = [
    await shadowingStatus(client, otherEntrySites(client, scope, currentPlace()), launch, agentFolders(launchTrust(scope))),
    await policyStatus(client, currentPlace(), launch),
  ].filter((status): status is RegistrationStatus => status !== undefined);
  if (found.length === 0) return undefined;
  return {
    state: found.map((status) => status.state).reduce(worseState),
    reasons: found.flatMap((status) => status.reasons),
  };
}

/**
 * `own` (the file's status) with what the client reads besides it in this folder (shadowing.ts): another program
 * there makes the row foreign, one Torii cannot read makes a registered row unknown, another Torii entry makes it
 * outdated. Not for `--config`'s file.
 */
async function withShadows(client: ClientAdapter, scope: ConfigScope, own: RegistrationStatus, options: AgentOptions): Promise<RegistrationStatus> {
  if (options.config !== undefined) return own;
  const shadow = await besides(client, scope, currentLaunch(configRoot()));
  if (shadow === undefined) return own;
  // What another place starts in this folder (another program, an entry the agent governs, nothing at all) wins; a
  // place Torii cannot read, or another Torii entry, only changes a registered row.
  const decisive = shadow.state === "foreign" || shadow.state === "unsafe" || shadow.state === "blocked";
  const state = decisive ? worseState(own.state, shadow.state) : own.state !== "registered" ? own.state : shadow.state;
  return { state, reasons: [...own.reasons, ...shadow.reasons] };
}

async function statusRow(client: ClientAdapter, options: AgentOptions): Promise<StatusRow> {
  const { file, scope } = targetFile(client, options);
  try {
    const own = await inspectRegistration(client, file, currentLaunch(configRoot()), launchTrust(scope));
    const status = await withShadows(client, scope, own, options);
    return { client: client.id, scope, file, state: status.state, reasons: status.reasons, guard: await guardState(client, scope) };
  } catch (error) {
    if (error instanceof ConfigError)
      return { client: client.id, scope, file, state: "unreadable", reasons: [error.message], guard: await guardState(client, scope) };
    throw error;
  }
}

/** Exit 0 when every client asked about is registered, 1 otherwise. */
export async function runAgentStatus(id: string | undefined, options: AgentOptions): Promise<number> {
  if (id === undefined && options.config !== undefined) throw new OperatorError("--config needs a client: torii agent status <client> --config PATH");
  const clients =
    id === undefined ? CLIENTS.filter((client) => options.scope === undefined || client.scopes.includes(options.scope as ConfigScope)) : [clientOrFail(id)];
  const rows = await Promise.all(clients.map((client) => statusRow(client, options)));
  const lines = rows.flatMap((row) => [
    `${row.client.padEnd(15)} ${row.state.padEnd(11)} ${row.file}${row.guard === null ? "" : ` (guard: ${row.guard})`}`,
    ...row.reasons.map((reason) => `  ${reason}`),
  ]);
  emit(options, { clients: rows }, lines);
  // With --guard, a client with a hook counts as registered only with the guard in place too.
  const guarded = (row: StatusRow): boolean => options.guard !== true || row.guard === null || row.guard === "installed";
  return rows.every((row) => row.state === "registered" && guarded(row)) ? 0 : 1;
}
