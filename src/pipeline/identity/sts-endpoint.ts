/**
 * Where the AWS CLI would send the STS request, and how: region, endpoint,
 * FIPS/dual-stack, CA bundle and proxy, resolved from the child environment and
 * the profile's section of the config file with the CLI's precedence
 * (environment over config file; `AWS_ENDPOINT_URL_STS` over the profile's
 * `services` section over `AWS_ENDPOINT_URL` over the profile's `endpoint_url`).
 * The proxy the CLI would use follows botocore and Python's urllib
 * (urllib-proxy.ts) over every host the CLI may reach.
 * Pure: the config file is parsed by the caller.
 */
import type { StsProbeInputs } from "./aws-call-plan.js";
import { destinationOf, proxyFor, UNKNOWN_HOST, type ProxyDestination } from "./urllib-proxy.js";

/** A profile's keys (and its `services` section's), as the SDK's INI loader returns them. */
export type IniSection = Readonly<Record<string, string | undefined>>;

export interface StsRoute {
  /** The probe's region: the target's, else AWS CLI v1's choice (AWS_DEFAULT_REGION, the profile's, us-east-1). */
  readonly region: string;
  /** undefined: the SDK's default STS endpoint for the region. */
  readonly endpoint: string | undefined;
  /**
   * Whether the probe asks the global STS host (`sts.amazonaws.com`) for the
   * legacy regions, as the CLI does when `sts_regional_endpoints` is `legacy`
   * (environment over profile) or when no region is configured at all.
   */
  readonly useGlobalEndpoint: boolean;
  /**
   * The endpoint of the SSO service for an SSO profile, with the CLI's
   * precedence for the `sso` service (`AWS_ENDPOINT_URL_SSO`, the profile's
   * `services` section, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`), never
   * the STS-only one; undefined: the SDK's default for the profile's `sso_region`.
   */
  readonly ssoEndpoint: string | undefined;
  /** Where botocore's proxy lookup sees the configured SSO endpoint (its untrimmed text); undefined: none configured. */
  readonly ssoEndpointDestination: ProxyDestination | undefined;
  readonly useFips: boolean;
  readonly useDualstack: boolean;
  /** A CA bundle file to trust instead of the system store. */
  readonly caBundle: string | undefined;
  /** The proxy the CLI would use for this endpoint, if any. */
  readonly proxy: string | undefined;
}

/** The region the CLI falls back to for STS when neither the target, the environment nor the profile names one. */
export const DEFAULT_STS_REGION = "us-east-1";

function truthy(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === "true";
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/** The first of `values` that is not blank, as written (botocore's proxy lookup reads it untrimmed). */
function configured(...values: readonly (string | undefined)[]): string | undefined {
  return values.find((value) => nonEmpty(value) !== undefined);
}

/** Where botocore's proxy lookup sees a configured endpoint: its untrimmed text, or no known host when blanks surround it. */
function configuredDestination(raw: string): ProxyDestination {
  return raw === raw.trim() ? destinationOf(raw) : { scheme: undefined, netloc: UNKNOWN_HOST };
}

/**
 * The regions botocore sends STS to for `sts_regional_endpoints = legacy`
 * (botocore/args.py LEGACY_GLOBAL_STS_REGIONS): the global host
 * `sts.amazonaws.com` instead of the region's own.
 */
const LEGACY_GLOBAL_STS_REGIONS: ReadonlySet<string> = new Set([
  "ap-northeast-1",
  "ap-south-1",
  "ap-southeast-1",
  "ap-southeast-2",
  "aws-global",
  "ca-central-1",
  "eu-central-1",
  "eu-north-1",
  "eu-west-1",
  "eu-west-2",
  "eu-west-3",
  "sa-east-1",
  "us-east-1",
  "us-east-2",
  "us-west-1",
  "us-west-2",
]);

const GLOBAL_STS: ProxyDestination = { scheme: "https", netloc: "sts.amazonaws.com" };

/** A default (https) host not known here: only a NO_PROXY of exactly `*` excludes it, so any proxy applies (fail closed). */
const UNKNOWN_HTTPS_HOST: ProxyDestination = { scheme: "https", netloc: UNKNOWN_HOST };

/** The STS route of `inputs`, given the profile section and its `services` section of the config file. */
export function stsRouteOf(inputs: StsProbeInputs, profile: IniSection, services: IniSection): StsRoute {
  const { env } = inputs;
  // AWS CLI v1 takes AWS_DEFAULT_REGION, v2 AWS_REGION before it; either may be installed, so the proxy is judged for both.
  const v1Region = inputs.pinnedRegion ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? nonEmpty(profile.region);
  const v2Region = inputs.pinnedRegion ?? nonEmpty(env.AWS_REGION) ?? v1Region;
  const region = v1Region ?? DEFAULT_STS_REGION;
  // botocore reads AWS_STS_REGIONAL_ENDPOINTS when set at all (even empty), else the profile's key.
  const stsRegional = env.AWS_STS_REGIONAL_ENDPOINTS ?? profile.sts_regional_endpoints;
  // With no region at all botocore resolves STS to its global host, whatever the setting (AWS CLI 1.45 here does).
  const useGlobalEndpoint = v1Region === undefined || stsRegional === "legacy";
  const ignoreConfigured = truthy(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? profile.ignore_configured_endpoint_urls);
  const rawEndpoint = ignoreConfigured
    ? undefined
    : configured(env.AWS_ENDPOINT_URL_STS, services["sts.endpoint_url"], env.AWS_ENDPOINT_URL, profile.endpoint_url);
  const rawSsoEndpoint = ignoreConfigured
    ? undefined
    : configured(env.AWS_ENDPOINT_URL_SSO, services["sso.endpoint_url"], env.AWS_ENDPOINT_URL, profile.endpoint_url);
  const useFips = truthy(env.AWS_USE_FIPS_ENDPOINT ?? profile.use_fips_endpoint);
  const useDualstack = truthy(env.AWS_USE_DUALSTACK_ENDPOINT ?? profile.use_dualstack_endpoint);
  const caBundle = nonEmpty(env.AWS_CA_BUNDLE) ?? nonEmpty(profile.ca_bundle);
  const regions = [v1Region, v2Region];
  // The global host counts whenever the CLI may use it: no region, or a legacy region unless the setting is exactly
  // `regional` (older botocore defaults to `legacy`; a value botocore rejects fails the CLI, so counting it is stricter).
  const globalMayBeUsed = regions.some((candidate) => candidate === undefined || (stsRegional !== "regional" && LEGACY_GLOBAL_STS_REGIONS.has(candidate)));
  const destinations =
    rawEndpoint !== undefined
      ? [configuredDestination(rawEndpoint)]
      : [
          ...regions.flatMap((candidate) => serviceDestinations(candidate ?? DEFAULT_STS_REGION, useFips || useDualstack, [["sts", "sts-fips"]])),
          ...(globalMayBeUsed ? [GLOBAL_STS] : []),
        ];
  return {
    region,
    endpoint: rawEndpoint?.trim(),
    useGlobalEndpoint,
    ssoEndpoint: rawSsoEndpoint?.trim(),
    ssoEndpointDestination: rawSsoEndpoint === undefined ? undefined : configuredDestination(rawSsoEndpoint),
    useFips,
    useDualstack,
    caBundle,
    proxy: firstProxy(env, destinations),
  };
}

/** The DNS suffixes of the partitions whose host names are known here (the SDK's partition table). */
const PARTITIONS: readonly (readonly [RegExp, { readonly dns: string; readonly dualStack: string }])[] = [
  [/^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/u, { dns: "amazonaws.com", dualStack: "api.aws" }],
  [/^us-gov-\w+-\d+$/u, { dns: "amazonaws.com", dualStack: "api.aws" }],
  [/^cn-\w+-\d+$/u, { dns: "amazonaws.com.cn", dualStack: "api.amazonwebservices.com.cn" }],
];

/**
 * The default hosts of `services` (host name prefixes, plain and FIPS: `sts` and `sts-fips`)
 * in `region`, in the region's partition (`amazonaws.com`, `amazonaws.com.cn`
 * for China); with `variants`, also the FIPS (`<prefix>-fips`) and dual-stack
 * hosts (an extra host can only make the check stricter). A region outside the
 * partitions known here (the iso partitions, say) gives no known host, which
 * only a NO_PROXY of exactly `*` excludes: its real hosts are unknown, so any proxy applies.
 */
function serviceDestinations(region: string, variants: boolean, services: readonly (readonly [string, string])[]): readonly ProxyDestination[] {
  const partition = PARTITIONS.find(([pattern]) => pattern.test(region))?.[1];
  if (partition === undefined) return [UNKNOWN_HTTPS_HOST];
  const host = (netloc: string): ProxyDestination => ({ scheme: "https", netloc });
  return services.flatMap(([service, fips]) => {
    const plain = host(`${service}.${region}.${partition.dns}`);
    if (!variants) return [plain];
    return [
      plain,
      host(`${fips}.${region}.${partition.dns}`),
      host(`${service}.${region}.${partition.dualStack}`),
      host(`${fips}.${region}.${partition.dualStack}`),
    ];
  });
}

/** The first proxy the CLI would use for one of `destinations`, if any. */
function firstProxy(env: StsProbeInputs["env"], destinations: readonly ProxyDestination[]): string | undefined {
  for (const destination of destinations) {
    const proxy = proxyFor(env, destination);
    if (proxy !== undefined) return proxy;
  }
  return undefined;
}

/**
 * The proxy the CLI would use for the SSO requests of an SSO profile (the
 * portal's GetRoleCredentials and, for an `sso_session`, the OIDC token
 * refresh), if any. The probe sends them through the same handler as STS (the
 * same timeouts and CA bundle) and, like STS, never through a proxy: when one
 * would apply, the check must fail rather than go around it.
 * `ssoRegion` undefined (not found), or outside the partitions known here: every default SSO host is unknown, so any
 * proxy applies. The hosts are the region's partition's (`amazonaws.com.cn` in China); those of FIPS and dual-stack
 * variants are included with the plain ones: an extra host can only make the check stricter.
 */
export function ssoProxyOf(inputs: StsProbeInputs, route: StsRoute, ssoRegion: string | undefined): string | undefined {
  const destinations =
    route.ssoEndpointDestination !== undefined
      ? [route.ssoEndpointDestination]
      : ssoRegion === undefined
        ? [UNKNOWN_HTTPS_HOST]
        : serviceDestinations(ssoRegion, route.useFips || route.useDualstack, [
            ["portal.sso", "portal.sso-fips"],
            ["oidc", "oidc-fips"],
          ]);
  return firstProxy(inputs.env, destinations);
}
