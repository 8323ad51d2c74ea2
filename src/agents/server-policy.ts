/**
 * A client's administrator can forbid a server by name or command whatever
 * the user's files say: Claude Code's managed settings (`managed-settings.json`)
 * hold `deniedMcpServers` (a match by `serverName` or exact `serverCommand`
 * blocks it, and the denylist wins over any allowlist) and, with
 * `allowManagedMcpServersOnly: true`, an `allowedMcpServers` list that is the
 * only one honoured. Source: code.claude.com/docs/en/managed-mcp. A registration
 * such a policy forbids is never started, so status calls it `blocked`.
 */
import type { ClientAdapter, ToriiLaunch } from "./adapter.js";
import { SERVER_NAME } from "./adapter.js";
import { readConfigText } from "./config-file.js";
import { sameValue } from "./document-value.js";
import { formatOf } from "./format.js";
import type { Place } from "./place.js";
import { claudeManagedSettings } from "./system-places.js";
import type { RegistrationStatus } from "./registration.js";

/** One `allowedMcpServers`/`deniedMcpServers` item, as far as a stdio server is concerned. */
function matches(rule: unknown, command: readonly unknown[]): boolean {
  if (typeof rule !== "object" || rule === null) return false;
  const { serverName, serverCommand } = rule as { serverName?: unknown; serverCommand?: unknown };
  return serverName === SERVER_NAME || (Array.isArray(serverCommand) && sameValue(serverCommand, command));
}

/** Why the managed settings document forbids Torii's server started as `command`, or undefined. */
export function managedPolicyBlock(settings: unknown, command: readonly unknown[]): string | undefined {
  if (typeof settings !== "object" || settings === null) return undefined;
  const { deniedMcpServers, allowedMcpServers, allowManagedMcpServersOnly } = settings as Record<string, unknown>;
  if (Array.isArray(deniedMcpServers) && deniedMcpServers.some((rule) => matches(rule, command))) return "its deniedMcpServers lists Torii";
  if (allowManagedMcpServersOnly === true && Array.isArray(allowedMcpServers) && !allowedMcpServers.some((rule) => matches(rule, command))) {
    return "it allows only the servers in its allowedMcpServers (allowManagedMcpServersOnly), and Torii is not one";
  }
  return undefined;
}

/**
 * `blocked` when the client's administrator policy forbids Torii's server as
 * `launch` starts it (Claude Code's managed settings), else undefined. A
 * policy file Torii cannot read makes it `unknown`.
 *
 * @param file the managed settings file (its usual place; injected for tests).
 */
export async function policyStatus(
  client: ClientAdapter,
  place: Place,
  launch: ToriiLaunch,
  file: string = claudeManagedSettings(place),
): Promise<RegistrationStatus | undefined> {
  if (client.id !== "claude-code") return undefined;
  const entry = client.entry(launch) as { command?: unknown; args?: unknown };
  const command = [entry.command, ...(Array.isArray(entry.args) ? (entry.args as unknown[]) : [])];
  try {
    const text = (await readConfigText(file, { rootOwned: true })).text;
    if (text === undefined) return undefined;
    const why = managedPolicyBlock(formatOf(client).parse(file, text), command);
    if (why === undefined) return undefined;
    return { state: "blocked", reasons: [`${file} (managed settings): ${why}; ${client.title} does not start it (ask whoever manages that file)`] };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { state: "unknown", reasons: [`${file} (managed settings) cannot be read by Torii (${why}); it may forbid Torii's server`] };
  }
}
