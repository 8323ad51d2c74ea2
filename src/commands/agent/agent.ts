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
import { inspectRegistration, installRegistration, uninstallRegistration } from "../../agents/registration.js";
import { currentLaunch } from "../../agents/torii-launch.js";
import { ConfigError } from "../../config/errors.js";
import { emit } from "../shared/operator-output.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";

/** The options of every `agent` subcommand. */
export interface AgentOptions {
  readonly scope?: string;
  readonly config?: string;
  readonly json?: boolean;
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
  return { file: client.configFile(scope, currentPlace()), scope };
}

export async function runAgentInstall(id: string, options: AgentOptions): Promise<number> {
  const client = clientOrFail(id);
  const { file, scope } = targetFile(client, options);
  const change = await installRegistration(client, file, currentLaunch(configRoot()));
  const said = change.changed ? `registered Torii with ${client.title} in ${file}` : `Torii is already registered with ${client.title} in ${file}`;
  const lines = change.backup === undefined ? [said] : [said, `previous content kept in ${change.backup}`];
  emit(options, { client: client.id, scope, file, changed: change.changed, backup: change.backup ?? null }, lines);
  return 0;
}

export async function runAgentUninstall(id: string, options: AgentOptions): Promise<number> {
  const client = clientOrFail(id);
  const { file, scope } = targetFile(client, options);
  const change = await uninstallRegistration(client, file);
  const said = change.changed ? `removed Torii from ${client.title} (${file})` : `Torii is not registered with ${client.title} in ${file}; nothing to remove`;
  const lines = change.backup === undefined ? [said] : [said, `previous content kept in ${change.backup}`];
  emit(options, { client: client.id, scope, file, changed: change.changed, backup: change.backup ?? null }, lines);
  return 0;
}

interface StatusRow {
  readonly client: string;
  readonly scope: ConfigScope;
  readonly file: string;
  readonly state: string;
  readonly reasons: readonly string[];
}

async function statusRow(client: ClientAdapter, options: AgentOptions): Promise<StatusRow> {
  const { file, scope } = targetFile(client, options);
  try {
    const status = await inspectRegistration(client, file, currentLaunch(configRoot()));
    return { client: client.id, scope, file, state: status.state, reasons: status.reasons };
  } catch (error) {
    if (error instanceof ConfigError) return { client: client.id, scope, file, state: "unreadable", reasons: [error.message] };
    throw error;
  }
}

/** Exit 0 when every client asked about is registered, 1 otherwise. */
export async function runAgentStatus(id: string | undefined, options: AgentOptions): Promise<number> {
  if (id === undefined && options.config !== undefined) throw new OperatorError("--config needs a client: torii agent status <client> --config PATH");
  const clients =
    id === undefined ? CLIENTS.filter((client) => options.scope === undefined || client.scopes.includes(options.scope as ConfigScope)) : [clientOrFail(id)];
  const rows = await Promise.all(clients.map((client) => statusRow(client, options)));
  const lines = rows.flatMap((row) => [`${row.client.padEnd(15)} ${row.state.padEnd(11)} ${row.file}`, ...row.reasons.map((reason) => `  ${reason}`)]);
  emit(options, { clients: rows }, lines);
  return rows.every((row) => row.state === "registered") ? 0 : 1;
}
