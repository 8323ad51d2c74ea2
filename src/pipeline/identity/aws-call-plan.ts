/**
 * The one place that decides what an `aws_profile` call sees: the child's
 * environment and injected options, and, derived from that very environment,
 * what the STS account check uses (profile, config and credentials files,
 * region, endpoint, CA and proxy variables). The probe's inputs are computed
 * from the child environment, not from the server's, so both start from the
 * same files and variables. That alone does not make them agree: the probe
 * runs the JS SDK and the CLI runs botocore, whose readings differ; the probe
 * models botocore's where it can and refuses the rest (sts-endpoint.ts,
 * credential-chain.ts, ini-dialect.ts).
 */
import os from "node:os";
import path from "node:path";
import type { ProviderEntry, TargetEntry } from "../../config/registry.js";
import { planChild, type ChildPlan, type ChildPlanDeps, type CredentialLayers } from "../child-plan.js";
import { targetInjection } from "../target-injection.js";

/**
 * The variables of the child environment that steer how the AWS CLI finds its
 * credentials, region, endpoints (STS, SSO, SSO OIDC, signin) and trust; with
 * them, every proxy variable in any case (PROXY_VARIABLE), since Python's
 * urllib reads `Https_Proxy` too, and every `AWS_EC2_METADATA_*` one
 * (METADATA_VARIABLE). They are also what the identity cache's fingerprint
 * digests.
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
  "AWS_ENDPOINT_URL_SSO_OIDC",
  "AWS_ENDPOINT_URL_SIGNIN",
  "AWS_LOGIN_CACHE_DIRECTORY",
  "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
  "AWS_USE_FIPS_ENDPOINT",
  "AWS_USE_DUALSTACK_ENDPOINT",
  "AWS_CA_BUNDLE",
  "REQUESTS_CA_BUNDLE",
]);

/** A variable urllib's `getproxies_environment` reads (`<key>_proxy`, the suffix in any case): see urllib-proxy.ts. */
const PROXY_VARIABLE = /_proxy$/iu;
/** The instance metadata settings botocore reads (`AWS_EC2_METADATA_DISABLED`, `_SERVICE_ENDPOINT`, `_SERVICE_ENDPOINT_MODE`, `_V1_DISABLED`, …). */
const METADATA_VARIABLE = /^AWS_EC2_METADATA_/u;

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
  /** The steering variables (STS_STEERING_VARIABLES, every proxy and AWS_EC2_METADATA_* variable) as the child has them. */
  readonly env: Readonly<Record<string, string>>;
  /**
   * The child's whole environment: what a `credential_process` gets, in the probe as under the CLI
   * (which runs it with its own environment), never the server's.
   */
  readonly processEnv: Readonly<Record<string, string>>;
  /** Where the child runs and what its PATH search leaves out: the place a `credential_process` is judged and run in. */
  readonly place: ProcessPlace;
}

/** The child's working directory, Torii's own directory and the operator's trusted PATH directories. */
export interface ProcessPlace {
  readonly cwd: string;
  readonly selfDir: string;
  readonly trustedDirectories?: readonly string[] | undefined;
  readonly platform: NodeJS.Platform;
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

/**
 * The STS probe's inputs for a child environment `env` and the target's pinned profile and region, for a
 * child running at `place` (its credential_process is judged and started there).
 */
export function stsInputsOf(env: Readonly<Record<string, string>>, profile: string, pinnedRegion: string | undefined, place: ProcessPlace): StsProbeInputs {
  const steering: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (STS_STEERING_VARIABLES.includes(name) || PROXY_VARIABLE.test(name) || METADATA_VARIABLE.test(name)) steering[name] = value;
  }
  return {
    profile,
    ...awsFilesOf(env),
    pinnedRegion,
    env: steering,
    processEnv: { ...env },
    place,
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
  const place = { cwd: deps.cwd, selfDir: deps.selfDir, trustedDirectories: deps.pathTrustedDirectories, platform: deps.platform };
  return { child, sts: stsInputsOf(child.env, profile, target.config.region, place) };
}
