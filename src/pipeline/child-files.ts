/**
 * What the child of a call to a provider (on a target) will see, computed the
 * way the server's launch computes it: the same credential layers (readLayers),
 * the same pinned values (targetInjection), the same environment (childEnvOf)
 * and the same executable lookup (planChild). The operator CLI (`torii target
 * add`, `torii setup`, `torii doctor`) asks this function instead of reading
 * its own shell's PATH, KUBECONFIG, AWS_CONFIG_FILE or HOME, which the server
 * never passes on, so the CLI and the server cannot disagree about which
 * program runs and which files it reads.
 */
import type { ProviderEntry, Registry, TargetEntry } from "../config/registry.js";
import { authScopeOf } from "./auth-scope.js";
import { readLayers } from "./authenticate.js";
import { ChildPlanError, childEnvOf, planChild, variable, type ChildPlan, type ChildPlanDeps } from "./child-plan.js";
import { childKubeconfigOf, type ChildKubeconfig } from "./child-kubeconfig.js";
import { awsFilesOf } from "./identity/aws-call-plan.js";
import { targetInjection } from "./target-injection.js";

/**
 * What locates a call's program and the files it reads. The operator CLI starts
 * programs with these only (version probes, `kubectl config get-contexts`):
 * credentials from a `.env` go to the validation and execution children alone.
 */
const LOCATING_VARIABLES: readonly string[] = ["PATH", "HOME", "USERPROFILE", "KUBECONFIG", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"];

export interface ChildFiles {
  /**
   * The environment for a program the operator CLI starts on the call's behalf:
   * the allowlisted server variables plus the call's own LOCATING_VARIABLES,
   * never another `.env` or pinned value.
   */
  readonly probeEnv: Readonly<Record<string, string>>;
  /**
   * The absolute program the call runs and the version-manager variables pinned for it
   * (config/version-pin.ts), or why there is none: `refused` when a program was found but
   * cannot be run safely (a shim Torii cannot pin, a refused batch wrapper).
   */
  readonly executable:
    | { readonly ok: true; readonly path: string; readonly pins: Readonly<Record<string, string>> }
    | { readonly ok: false; readonly reason: string; readonly refused: boolean };
  readonly kubeconfig: ChildKubeconfig;
  readonly aws: ReturnType<typeof awsFilesOf>;
}

/**
 * The environment-derived locations of a call to `provider` on `target`
 * (undefined for a call without one).
 *
 * @throws ConfigError when a `.env` layer is untrusted or malformed, as the call would fail.
 */
export function childFilesOf(provider: ProviderEntry, target: TargetEntry | undefined, registry: Registry, deps: ChildPlanDeps): ChildFiles {
  const layers = readLayers({ provider, target }, authScopeOf(provider, target, registry).identity);
  const pinned = targetInjection(provider, target).env;
  const env = childEnvOf(provider, layers, pinned, deps);
  let executable: ChildFiles["executable"];
  let plan: ChildPlan | undefined;
  try {
    plan = planChild(provider.config.command, [], provider, layers, pinned, deps);
    const pins = Object.fromEntries(plan.pinnedVariables.map((name) => [name, plan?.env[name] ?? ""]));
    executable = { ok: true, path: plan.executable, pins };
  } catch (error) {
    executable = { ok: false, reason: (error as Error).message, refused: error instanceof ChildPlanError };
  }
  return {
    probeEnv: probeEnvOf(provider, plan?.env ?? env, plan?.pinnedVariables ?? [], deps),
    executable,
    kubeconfig: childKubeconfigOf(env, deps.platform),
    aws: awsFilesOf(env),
  };
}

/**
 * The allowlisted server variables plus the call's own LOCATING_VARIABLES and the version pins of its
 * plan (the probe runs the same shim in the same working directory), built as a child environment is.
 */
function probeEnvOf(provider: ProviderEntry, env: Readonly<Record<string, string>>, pins: readonly string[], deps: ChildPlanDeps): Record<string, string> {
  const locating = new Map<string, string>();
  for (const name of [...LOCATING_VARIABLES, ...pins]) {
    const value = variable(env, name, deps.platform);
    if (value !== undefined) locating.set(name, value);
  }
  return childEnvOf(provider, [locating], {}, deps);
}
