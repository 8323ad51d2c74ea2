/**
 * Setup's registration step: each MCP client Torii knows, with whether this
 * Torii is registered in its usual file (as `torii agent status` reads it),
 * and the chosen ones registered exactly as `torii agent install <client>`
 * does (the client's other servers and comments kept, a backup beside it).
 */
import os from "node:os";
import { checkbox } from "@inquirer/prompts";
import { CLIENTS } from "../../agents/clients.js";
import { inspectRegistration } from "../../agents/registration.js";
import { currentLaunch } from "../../agents/torii-launch.js";
import { ConfigError } from "../../config/errors.js";
import { runAgentInstall } from "../agent/agent.js";
import { operatorTrustedDirectories } from "../shared/operator-path-trust.js";
import { registrationTrust } from "../../agents/launch-trust.js";
import { OperatorError, visibleMessage } from "../shared/operator-context.js";

/** Whether this Torii is registered in `client`'s default-scope file: registered, missing, outdated, foreign or unreadable. */
async function stateOf(client: (typeof CLIENTS)[number], root: string): Promise<string> {
  const place = { platform: process.platform, env: process.env, home: os.homedir(), cwd: process.cwd() };
  const file = client.configFile(client.scopes[0] ?? "user", place);
  try {
    // As torii agent status judges it: the code must lie outside the folder this runs from too.
    const trust = registrationTrust(client.scopes[0] ?? "user", place, operatorTrustedDirectories(root));
    return (await inspectRegistration(client, file, currentLaunch(root), trust)).state;
  } catch (error) {
    if (error instanceof ConfigError) return "unreadable";
    throw error;
  }
}

/** Shows the clients and registers Torii with the ones the operator picks. */
export async function agentStep(root: string, say: (...lines: string[]) => void): Promise<void> {
  const rows = await Promise.all(CLIENTS.map(async (client) => ({ client, state: await stateOf(client, root) })));
  say("", "MCP clients (torii agent status):", ...rows.map(({ client, state }) => `  ${client.id.padEnd(15)} ${state}`));
  // An unreadable file is left alone, as torii agent install would refuse it.
  const open = rows.filter(({ state }) => state === "missing" || state === "outdated");
  if (open.length === 0) return;
  const chosen = await checkbox({
    message: "Register Torii with which clients?",
    choices: open.map(({ client, state }) => ({ name: `${client.title} (${client.id}${state === "outdated" ? ", outdated" : ""})`, value: client.id })),
  });
  // A refusal for one client (a launch the trust check refuses, a file that does not parse) is reported, and the
  // wizard goes on with the others and its later steps.
  for (const id of chosen) {
    try {
      await runAgentInstall(id, {});
    } catch (error) {
      if (!(error instanceof OperatorError) && !(error instanceof ConfigError)) throw error;
      say(`  ${id}: not registered: ${visibleMessage(error.message)}`);
    }
  }
}
