/**
 * How a child process is prepared, the same way for the real call and for the
 * auth lifecycle's validate and identity commands (the identity check must run
 * with the very environment the call will use): the executable resolved through
 * PATH to an absolute file, and the environment built from the allowlist, the
 * credential layers, minus `removed_env`, plus the provider's `fixed_env` and
 * pinned values.
 */
import path from "node:path";
import type { ProviderEntry } from "../config/registry.js";
import { searchTrust } from "../config/search-trust.js";
import { pinVersionManagers, VersionPinError, type PinnedChild } from "../config/version-pin.js";
import { accountHome, accountName } from "../runtime/account-name.js";
import { buildChildEnv } from "../runtime/child-env.js";
import { planBatchLaunch } from "../runtime/batch-arguments.js";
import { resolveRemembered } from "./remembered-executable.js";
import { homeConfigFound, pythonHome, pythonHomes } from "../runtime/home-config.js";
import { fixedEnvOf, homeConfigOf } from "../config/runtime-floor.js";
import { rememberedChildPath } from "./remembered-search-path.js";
import { workingDirectoryConfigFound } from "../runtime/working-directory-config.js";
import type { SearchTrust } from "../runtime/search-path.js";

export interface ChildPlanDeps {
  /** The server's own environment: only its allowlisted variables reach a child. */
  readonly serverEnv: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  /** Torii's own directory, never searched for executables. */
  readonly selfDir: string;
  readonly cwd: string;
  /** The operator's `path.trusted_directories` (settings.yaml): where the PATH search accepts group write. None when absent. */
  readonly pathTrustedDirectories?: readonly string[] | undefined;
}

/** `.env` layers in increasing precedence: identity provider, provider, target. */
export type CredentialLayers = readonly ReadonlyMap<string, string>[];

export interface ChildPlan {
  readonly executable: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly windowsVerbatimArguments: boolean;
  /** Version-manager override variables set by Torii (config/version-pin.ts), for the operator CLI's probes to pass on. */
  readonly pinnedVariables: readonly string[];
}

/** A variable of a built environment; on Windows whatever the spelling of either name (one spelling is kept). */
export function variable(env: Readonly<Record<string, string>>, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== "win32") return env[name];
  const wanted = name.toUpperCase();
  const key = Object.keys(env).find((candidate) => candidate.toUpperCase() === wanted);
  return key === undefined ? undefined : env[key];
}

/** A child that cannot be started safely (no such program, a refused batch wrapper). */
export class ChildPlanError extends Error {}

/**
 * The environment a child of `provider` gets: the one computation behind planChild and the operator CLI's checks (child-files.ts).
 * `trust` is the PATH search's view of the filesystem, fresh for each computation unless planChild shares its own.
 */
export function childEnvOf(
  provider: ProviderEntry,
  layers: CredentialLayers,
  pinned: Readonly<Record<string, string>>,
  deps: ChildPlanDeps,
  trust: SearchTrust = searchTrustOf(deps),
): Record<string, string> {
  return buildChildEnv({
    serverEnv: deps.serverEnv,
    platform: deps.platform,
    cwd: deps.cwd,
    selfDir: deps.selfDir,
    trust,
    layers,
    removedEnv: provider.config.auth?.removed_env ?? [],
    fixedEnv: fixedEnvOf(provider.config),
    accountName,
    pinned,
    // Remembered from one call to the next while every path it was judged by is unchanged (remembered-search-path.ts).
    childPath: rememberedChildPath,
  });
}

/** A fresh search trust for one computation, with the operator's trusted directories. */
function searchTrustOf(deps: ChildPlanDeps): SearchTrust {
  return searchTrust(deps.platform, { trustedDirectories: deps.pathTrustedDirectories });
}

export function planChild(
  command: string,
  args: readonly string[],
  provider: ProviderEntry,
  layers: CredentialLayers,
  pinned: Readonly<Record<string, string>>,
  deps: ChildPlanDeps,
): ChildPlan {
  // One view of the filesystem for the child's PATH and the lookup through it: each entry is inspected once.
  const trust = searchTrustOf(deps);
  const built = childEnvOf(provider, layers, pinned, deps, trust);
  refuseWorkingDirectoryConfig(command, provider, built, deps);
  refuseHomeConfig(command, provider, built, deps);
  // The executable is looked up through the child's own PATH (a .env may set it), already reduced
  // by buildChildEnv to the directories the lookup searches, so what the child finds agrees.
  const pathExt = variable(built, "PATHEXT", deps.platform);
  // Remembered from one call to the next while every path it was judged by is unchanged (remembered-executable.ts).
  const resolved = resolveRemembered(command, {
    pathEnv: variable(built, "PATH", deps.platform),
    ...(pathExt === undefined ? {} : { pathExt }),
    platform: deps.platform,
    selfDir: deps.selfDir,
    cwd: deps.cwd,
    trust,
  });
  const { env, pinnedVariables } = pinnedChild(command, resolved.path, args, built, deps, trust);
  if (resolved.kind === "binary") return { executable: resolved.path, args, env, windowsVerbatimArguments: false, pinnedVariables };
  if (provider.config.runtime?.allow_batch_wrapper !== true) {
    throw new ChildPlanError(
      `${command} resolves to the batch file ${path.basename(resolved.path)}; batch wrappers are refused unless the provider sets runtime.allow_batch_wrapper`,
    );
  }
  const cmdExe = path.win32.join(env.SystemRoot ?? env.SYSTEMROOT ?? "C:\\Windows", "System32", "cmd.exe");
  const plan = planBatchLaunch(cmdExe, resolved.path, args);
  if (!("executable" in plan)) throw new ChildPlanError(`refused to run the batch wrapper ${path.basename(resolved.path)}: ${plan.ok ? "" : plan.reason}`);
  return { executable: plan.executable, args: plan.args, env, windowsVerbatimArguments: true, pinnedVariables };
}

/** The child's home where its CLI (az: Python's knack) stops looking for a working directory's configuration: Python's `~`. */
function childHome(env: Readonly<Record<string, string>>, deps: ChildPlanDeps): string | undefined {
  return pythonHome((name) => variable(env, name, deps.platform), deps.platform, deps.cwd, accountHome);
}

/**
 * Refuses the call while the working directory (the agent's project) or a parent below the child's
 * HOME holds a file the provider says its CLI reads from there (az's `.azure/config`, whose
 * `[defaults]` would fill in the arguments the call left out).
 */
function refuseWorkingDirectoryConfig(command: string, provider: ProviderEntry, env: Readonly<Record<string, string>>, deps: ChildPlanDeps): void {
  const entries = provider.config.runtime?.working_directory_config ?? [];
  const found = workingDirectoryConfigFound(deps.cwd, childHome(env, deps), entries);
  if (found.length > 0) {
    throw new ChildPlanError(
      `${command} reads configuration from its working directory, and ${found.join(", ")} exists there: ` +
        `remove it, or start the server in a directory without it (it would change what the call does)`,
    );
  }
}

/**
 * Refuses the call while the child's HOME holds a file the provider says rewrites what a call's words
 * mean (the AWS CLI's `~/.aws/cli/alias`): the CLI would run what the file says under a name the
 * decision judged as something else.
 */
function refuseHomeConfig(command: string, provider: ProviderEntry, env: Readonly<Record<string, string>>, deps: ChildPlanDeps): void {
  const entries = homeConfigOf(provider.config);
  if (entries.length === 0) return;
  // Where the CLI's Python expands `~` (an unset HOME is the account's home, USERPROFILE on Windows), not Torii's idea of it.
  const homes = pythonHomes((name) => variable(env, name, deps.platform), deps.platform, deps.cwd, accountHome);
  // A `$NAME/…` entry: under the directory the child's variable names (az's AZURE_CONFIG_DIR), as the CLI resolves it from its working directory.
  const directoryOf = (name: string): string | undefined => {
    const value = variable(env, name, deps.platform);
    return value === undefined || value === "" ? undefined : path.resolve(deps.cwd, value);
  };
  const found = homeConfigFound(homes, entries, directoryOf);
  if (found.length > 0) {
    throw new ChildPlanError(
      `${command} reads ${found.join(", ")}, which can make the call's words run another command or a shell line than the one decided on: ` +
        `remove or rename it (or set the provider's runtime.home_config to the files to refuse, [] for none, accepting that)`,
    );
  }
}

/**
 * The child's environment with the version managers it can reach pinned to the operator's global
 * choice (config/version-pin.ts): a shim would otherwise let a file in the working directory, the
 * agent's project, choose the interpreter or toolchain.
 */
function pinnedChild(
  command: string,
  executable: string,
  args: readonly string[],
  env: Record<string, string>,
  deps: ChildPlanDeps,
  trust: SearchTrust,
): PinnedChild {
  let child: PinnedChild;
  try {
    // Remembered from one call to the next while every path they were judged by is unchanged (version-pin.ts).
    child = pinVersionManagers(env, executable, { platform: deps.platform, cwd: deps.cwd, selfDir: deps.selfDir, trust }, { remember: true });
  } catch (error) {
    if (error instanceof VersionPinError) throw new ChildPlanError(error.message);
    throw error;
  }
  // A rustup proxy takes `+toolchain` as its first argument, over RUSTUP_TOOLCHAIN.
  if (child.manager?.kind === "rustup" && args[0]?.startsWith("+") === true) {
    throw new ChildPlanError(`${command} is a rustup proxy: a first argument starting with "+" would choose the toolchain`);
  }
  return child;
}
