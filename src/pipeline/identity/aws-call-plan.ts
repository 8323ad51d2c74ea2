/**
 * The one place that decides what an `aws_profile` call sees: the child's
 * environment and injected options, and, derived from that very environment,
 * what the STS account check uses (profile, config and credentials files,
 * region, endpoint, CA and proxy variables). The probe and the CLI therefore
 * read the same files and reach the same endpoint; they cannot drift apart
 * because the probe's inputs are computed from the child environment, not
 * from the server's.
 */
import os from "node:os";
import path from "node:path";
import type { ProviderEntry, TargetEntry } from "../../config/registry.js";
import { planChild, type ChildPlan, type ChildPlanDeps, type CredentialLayers } from "../child-plan.js";
import { targetInjection } from "../target-injection.js";

/**
 * The variables of the child environment that steer how the AWS CLI finds its
 * credentials, region and endpoint; with them, every proxy variable in any
 * case (PROXY_VARIABLE), since Python's urllib reads `Https_Proxy` too.
 */
export const STS_STEERING_VARIABLES: readonly string[] = Object.freeze([
  "HOME",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_STS_REGIONAL_ENDPOINTS",
  "AWS_ENDPOINT_URL",
  "AWS_ENDPOINT_URL_STS",
  "AWS_ENDPOINT_URL_SSO",
  "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
  "AWS_USE_FIPS_ENDPOINT",
  "AWS_USE_DUALSTACK_ENDPOINT",
  "AWS_CA_BUNDLE",
  // Where the CLI finds an `aws login` session's token (sts-probe.ts compares it with the SDK's own).
  "AWS_LOGIN_CACHE_DIRECTORY",
]);

/** A variable urllib's `getproxies_environment` reads (`<key>_proxy`, the suffix in any case): see urllib-proxy.ts. */
const PROXY_VARIABLE = /_proxy$/iu;

/** What the STS probe needs, all of it taken from the call's own child environment and target. */
export interface StsProbeInputs {
  /** The target's profile (the CLI gets `--profile` and the profile variable). */
  readonly profile: string;
  /** `AWS_CONFIG_FILE` of the child, else `$HOME/.aws/config`. */
  readonly configFile: string;
  /** `AWS_SHARED_CREDENTIALS_FILE` of the child, else `$HOME/.aws/credentials`. */
  readonly credentialsFile: string;
  /** The child's `$HOME/.aws`, whose SSO and CLI caches hold refreshed credentials. */
  readonly awsDir: string;
  /** The target's pinned region (the CLI gets `--region`). */
  readonly pinnedRegion: string | undefined;
  /** The steering variables (STS_STEERING_VARIABLES and every proxy variable) as the child has them. */
  readonly env: Readonly<Record<string, string>>;
}

/** The child of an aws_profile call and the STS probe's inputs, from one computation. */
export interface AwsCallPlan {
  readonly child: ChildPlan;
  readonly sts: StsProbeInputs;
}

/** The AWS config and credentials files a child with environment `env` reads, as the CLI finds them. */
export function awsFilesOf(env: Readonly<Record<string, string>>): { readonly configFile: string; readonly credentialsFile: string; readonly awsDir: string } {
  const home = env.HOME ?? os.homedir();
  return {
    configFile: env.AWS_CONFIG_FILE ?? path.join(home, ".aws", "config"),
    credentialsFile: env.AWS_SHARED_CREDENTIALS_FILE ?? path.join(home, ".aws", "credentials"),
    awsDir: path.join(home, ".aws"),
  };
}

/** The STS probe's inputs for a child environment `env` and the target's pinned profile and region. */
export function stsInputsOf(env: Readonly<Record<string, string>>, profile: string, pinnedRegion: string | undefined): StsProbeInputs {
  const steering: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (STS_STEERING_VARIABLES.includes(name) || PROXY_VARIABLE.test(name)) steering[name] = value;
  }
  return {
    profile,
    ...awsFilesOf(env),
    pinnedRegion,
    env: steering,
  };
}

/**
 * Plans the aws_profile call of `provider` on `target`: the child exactly as
 * the real call builds it (the provider's command, args_prefix, the target's
 * options, the credential layers, the pinned profile variable) and the STS
 * inputs derived from its environment.
 *
 * @throws ChildPlanError when the command cannot be started safely.
 */
export function planAwsCall(provider: ProviderEntry, target: TargetEntry, layers: CredentialLayers, deps: ChildPlanDeps): AwsCallPlan {
  const profile = target.config.identity.profile;
  if (profile === undefined) throw new Error(`target ${target.name} pins no AWS profile`);
  const injection = targetInjection(provider, target);
  const child = planChild(provider.config.command, [...provider.config.args_prefix, ...injection.args], provider, layers, injection.env, deps);
  return { child, sts: stsInputsOf(child.env, profile, target.config.region) };
}
