/**
 * The per-call check of the files a call's configuration points its child at
 * that can make it run a program: a kubeconfig (exec plugins,
 * pipeline/child-kubeconfig.ts) and the shared AWS config and credentials files
 * (`credential_process`, pipeline/child-aws-files.ts). It runs after the `.env`
 * layers are read and before any lifecycle command or the call starts.
 */
import { ConfigError } from "../config/errors.js";
import type { ProviderEntry, TargetEntry } from "../config/registry.js";
import { AWS_FILE_VARIABLES, checkConfiguredAwsFiles } from "./child-aws-files.js";
import { checkConfiguredKubeconfigs, childKubeconfigOf } from "./child-kubeconfig.js";
import { childEnvOf, type ChildPlanDeps, type CredentialLayers } from "./child-plan.js";
import { targetInjection } from "./target-injection.js";

const AWS_NAMES: readonly string[] = AWS_FILE_VARIABLES.map(([name]) => name);

/**
 * The files the call's environment names must be trusted. Most calls configure
 * none and pay only a look at the layers' keys. A path a `.env` set is a `.env`
 * value: the error then names no path (doctor does).
 *
 * @throws ConfigError as checkConfiguredKubeconfigs for the target's pinned
 *   kubeconfig; an Error without the path for a file a `.env` names.
 */
export function checkCallConfigFiles(provider: ProviderEntry, target: TargetEntry | undefined, layers: CredentialLayers, deps: ChildPlanDeps): void {
  const pinned = targetInjection(provider, target).env;
  const sets = (names: readonly string[]): boolean => layers.some((layer) => [...layer.keys()].some((name) => names.includes(name.toUpperCase())));
  const pin = Object.entries(pinned).find(([name]) => name.toUpperCase() === "KUBECONFIG")?.[1];
  const kube = pin !== undefined || sets(["KUBECONFIG"]);
  const aws = sets(AWS_NAMES);
  if (!kube && !aws) return;
  const env = childEnvOf(provider, layers, pinned, deps);
  const policy = provider.trust.policy;
  try {
    if (kube) checkConfiguredKubeconfigs(childKubeconfigOf(env, deps.platform), policy, pin);
  } catch (error) {
    if (pin !== undefined || !(error instanceof ConfigError)) throw error;
    throw new Error("a kubeconfig that KUBECONFIG in a .env of this call names is missing or refused by the trust rule; torii doctor names it and the fix");
  }
  try {
    if (aws) checkConfiguredAwsFiles(env, policy);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new Error(
      "an AWS file that AWS_CONFIG_FILE or AWS_SHARED_CREDENTIALS_FILE in a .env of this call names is missing or refused by the trust rule; torii doctor names it and the fix",
    );
  }
}
