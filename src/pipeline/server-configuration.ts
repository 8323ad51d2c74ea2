/**
 * The one start-up load of the configuration: the MCP server calls it before
 * serving, and the operator CLI's doctor command calls it to show the operator exactly what the
 * server would say. A configuration loads only when every part of it does:
 * the root resolves, every provider and target passes the trust rule and its
 * schema, settings parse, and every rules file in force (shared and per
 * target) parses and compiles. Rules are still re-read on every call (an
 * edit takes effect without a restart, and a rules file broken later denies
 * the calls it governs); checking them here means a server never starts
 * with a policy that could not decide anything.
 *
 * Nothing here reads a `.env` file or runs anything: the pipeline order holds.
 */
import path from "node:path";
import { combineConfigErrors, ConfigError } from "../config/errors.js";
import { resolveConfigRoot } from "../config/paths.js";
import { loadRegistry, type Registry } from "../config/registry.js";
import { loadSettings, type Settings } from "../config/settings.js";
import { PolicyCache } from "./policy-cache.js";

/** Everything the server needs from disk before it serves tools. */
export interface ServerConfiguration {
  readonly root: string;
  readonly registry: Registry;
  readonly settings: Settings;
  /** Already holds every policy compiled at start-up, so the first call does not compile again. */
  readonly policies: PolicyCache;
}

/** Why the configuration did not load, in the words the operator CLI uses for a ConfigError. */
export interface StartupFailure {
  /** The configuration root, when it could be resolved (the server log lives there). */
  readonly root: string | undefined;
  /** The problem(s), one per line, each `file:line:column: detail` (with `fix: <command>` for trust problems). */
  readonly message: string;
  /** The first problem's place, when it has one. */
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
}

export type ConfigurationLoad = { readonly ok: true; readonly configuration: ServerConfiguration } | { readonly ok: false; readonly failure: StartupFailure };

/** Where the process looks for its configuration: injected so tests and the operator CLI's doctor command can pass their own. */
export interface LoadEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly homedir: string;
}

/**
 * Loads the configuration as the server does at start-up.
 *
 * @returns the loaded configuration, or the failure to report; never throws
 *   for a configuration problem (an unexpected error is reported as one too).
 */
export function loadServerConfiguration(where: LoadEnvironment): ConfigurationLoad {
  let root: string | undefined;
  try {
    root = resolveConfigRoot(where.env, where.platform, where.homedir);
    const registry = loadRegistry(root);
    if (registry.providers.size === 0) throw noProviders(root);
    const settings = loadSettings(root);
    const policies = new PolicyCache();
    const combined = combineConfigErrors(compileEveryPolicy(registry, policies));
    if (combined !== undefined) throw combined;
    return { ok: true, configuration: { root, registry, settings, policies } };
  } catch (error) {
    return { ok: false, failure: startupFailureOf(error, root) };
  }
}

/** The failure for an error thrown while starting (a ConfigError keeps its place; anything else its message). */
export function startupFailureOf(error: unknown, root: string | undefined): StartupFailure {
  if (error instanceof ConfigError) return { root, message: error.message, file: error.file, line: error.line, column: error.column };
  const message = `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  return { root, message, file: undefined, line: undefined, column: undefined };
}

/**
 * The failure as the operator reads it, everywhere it is shown (stderr, the
 * server log, the MCP error tool, logging and instructions, the operator CLI's doctor command).
 */
export function renderStartupFailure(failure: StartupFailure): string {
  const where = failure.root === undefined ? "" : ` (configuration root ${failure.root})`;
  return [
    `Torii could not load its configuration${where}, so it serves no provider tool and runs nothing:`,
    failure.message,
    "Fix the problem above, then restart the Torii MCP server (reconnect or restart it in the MCP client).",
  ].join("\n");
}

function noProviders(root: string): ConfigError {
  return new ConfigError(
    path.join(root, "providers"),
    `no providers installed under ${root}: run torii setup, or torii provider install <name> (bundled: kubectl, aws, az, gcloud)`,
  );
}

/** Compiles the shared policy of every provider and the own policy of every target that has one. */
function compileEveryPolicy(registry: Registry, policies: PolicyCache): ConfigError[] {
  // A shared file's problem shows in every target's policy too: report it once.
  const problems = new Map<string, ConfigError>();
  const add = (error: ConfigError): void => {
    problems.set(error.message, error);
  };
  for (const entry of registry.providers.values()) {
    const aliases = [undefined, ...[...entry.targets.values()].filter((target) => target.hasOwnRules).map((target) => target.name)];
    for (const alias of aliases) {
      try {
        const { policy } = policies.load(entry, alias);
        // A rule that does not compile would deny every call: refuse it now, named by its place and list, never its
        // text (it can hold option values, and this reaches the server log, stderr and the agent).
        for (const { ref, message } of policy.errors) add(ruleError(ref.origin, `${ref.list} rule: ${message}`));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        add(error);
      }
    }
  }
  return [...problems.values()];
}

/** A rule's origin is `file:line:column` (or the file alone); the error keeps the place structured. */
function ruleError(origin: string, detail: string): ConfigError {
  const place = /^(.*):(\d+):(\d+)$/su.exec(origin);
  if (place === null) return new ConfigError(origin, detail);
  return new ConfigError(place[1] ?? origin, detail, { line: Number(place[2]), column: Number(place[3]) });
}
