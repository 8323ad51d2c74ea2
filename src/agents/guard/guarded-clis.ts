/**
 * Which CLIs the guard keeps the agent from running: the `command` (and MCP
 * `tool`) of every installed provider. The guard runs before every shell
 * command, so it reads those two top-level keys from each `provider.yaml`
 * without loading the whole registry (the kubectl table alone is 70 KB of
 * YAML), after the same trust check the server applies; a file whose keys are
 * not plain one-line scalars is read by the full loader instead. When the
 * configuration does not load, the guard still guards the bundled providers'
 * CLIs (kubectl, aws, az, gcloud) and says why: the MCP server is then down
 * too, and the shell must not become the way around it.
 */
import { readdirSync } from "node:fs";
import { ConfigError } from "../../config/errors.js";
import { readConfigText } from "../../config/read-file.js";
import { providerConfigPath, providerDir, providersDir, resolveConfigRoot } from "../../config/paths.js";
import { checkTrustedPath, configTrust } from "../../config/trusted-path.js";
import { programKey, type GuardedCli } from "./command-analysis.js";

/** The bundled providers' commands and tools (providers/<name>/provider.yaml). */
export const BUNDLED_CLIS: readonly GuardedCli[] = ["kubectl", "aws", "az", "gcloud"].map((name) => ({ command: name, tool: name }));

/**
 * Torii's own operator CLI. An agent with a shell could otherwise answer its
 * own approval (`torii approvals approve`), grant itself a command (`torii grant
 * add`) or a lease (`torii target activate`), or rewrite the rules: those are
 * the human's acts, so the guard blocks `torii` in every spelling too.
 */
export const OPERATOR_CLI: GuardedCli = { command: "torii", tool: "", operatorOnly: true };

/** `clis` and Torii's own operator CLI: what the guard keeps an agent's shell from running. */
export function withOperatorCli(clis: ReadonlyMap<string, GuardedCli>): ReadonlyMap<string, GuardedCli> {
  return new Map([...clis, [programKey(OPERATOR_CLI.command), OPERATOR_CLI]]);
}

export interface GuardedClis {
  readonly clis: ReadonlyMap<string, GuardedCli>;
  /** Set when the configuration did not load and the bundled list stands in. */
  readonly problem?: string;
}

/** Loads the guarded CLIs of the configuration root this process would serve. */
export async function loadGuardedClis(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform, homedir: string): Promise<GuardedClis> {
  try {
    const root = resolveConfigRoot(env, platform, homedir);
    const clis = readProviderClis(root) ?? (await readThroughRegistry(root));
    return { clis: byProgram(clis.length === 0 ? BUNDLED_CLIS : clis) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return {
      clis: byProgram(BUNDLED_CLIS),
      problem: `Torii's configuration did not load (${error.message.split("\n")[0] ?? ""}); the bundled CLIs are guarded`,
    };
  }
}

/** The guarded CLIs by the key a program name is matched with. */
export function byProgram(clis: readonly GuardedCli[]): ReadonlyMap<string, GuardedCli> {
  return new Map(clis.map((cli) => [programKey(cli.command), cli]));
}

/** The fast read; undefined when some file needs the full YAML loader. @throws ConfigError for an untrusted path */
function readProviderClis(root: string): GuardedCli[] | undefined {
  const trust = configTrust(root);
  if (!checkTrustedPath(trust, providersDir(root), "directory")) return [];
  const clis: GuardedCli[] = [];
  for (const entry of readdirSync(providersDir(root), { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const file = providerConfigPath(providerDir(root, entry.name));
    if (!checkTrustedPath(trust, file, "file")) continue;
    const text = readConfigText(file);
    const command = topLevelScalar(text, "command");
    const tool = topLevelScalar(text, "tool");
    if (command === undefined || tool === undefined || /^(---|\.\.\.|\{|%)/mu.test(text)) return undefined;
    clis.push({ command, tool });
  }
  return clis;
}

/** `key: value` at column 0, exactly once, with a plain or simply quoted one-line value; otherwise undefined. */
function topLevelScalar(text: string, key: string): string | undefined {
  const lines = [...text.matchAll(new RegExp(`^${key}[ \\t]*:[ \\t]*(.*?)[ \\t]*(?:[ \\t]#.*)?$`, "gmu"))];
  if (lines.length !== 1) return undefined;
  const value = lines[0]?.[1] ?? "";
  const quoted = /^"([^"\\]+)"$|^'([^']+)'$/u.exec(value);
  if (quoted !== null) return quoted[1] ?? quoted[2];
  return /^[A-Za-z0-9_./\\+@~-][^#'"]*$/u.test(value) ? value : undefined;
}

async function readThroughRegistry(root: string): Promise<GuardedCli[]> {
  const { loadRegistry } = await import("../../config/registry.js");
  return [...loadRegistry(root).providers.values()].map((provider) => ({ command: provider.config.command, tool: provider.tool }));
}
