/**
 * Where the AWS CLI would send the STS request, and how: region, endpoint,
 * FIPS/dual-stack, CA bundle and proxy, resolved from the child environment and
 * the profile's section (the config file's, with the credentials file's keys
 * over it, as botocore's `Session.full_config` merges them) with botocore's
 * precedence: environment over profile; a configured endpoint per service
 * (`sts`, `sso`, `sso_oidc`) from `AWS_ENDPOINT_URL_<SERVICE>`, then
 * `AWS_ENDPOINT_URL`, then the profile's `services` section, then the
 * profile's `endpoint_url` (botocore's ConfiguredEndpointProvider); the CA
 * bundle from `AWS_CA_BUNDLE`, then the profile's `ca_bundle`, then
 * `REQUESTS_CA_BUNDLE`. The proxy the CLI would use follows botocore and
 * Python's urllib (urllib-proxy.ts) over every host the CLI may reach. Where
 * the CLI would fail or turn certificate checks off, a ProbeRefusal is thrown.
 * Pure: the files are parsed by the caller.
 */
import type { StsProbeInputs } from "./aws-call-plan.js";
import { ProbeRefusal } from "./probe-refusal.js";
import { destinationOf, proxyFor, UNKNOWN_HOST, type ProxyDestination } from "./urllib-proxy.js";

/** A section's keys as the SDK's INI loader returns them (a profile's: the config file's, the credentials file's over them). */
export type IniSection = Readonly<Record<string, string | undefined>>;

/** A service whose endpoint botocore's configured-endpoint lookup resolves (its snake-case service id). */
export type EndpointService = "sts" | "sso" | "sso_oidc";

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
  /** The configured endpoint of the SSO portal service (configuredEndpointOf "sso"), as written; undefined: the default host of the `sso_region`. */
  readonly ssoEndpoint: string | undefined;
  /** The configured endpoint of SSO OIDC, the token refresh (configuredEndpointOf "sso_oidc"), as written; undefined: the default host. */
  readonly oidcEndpoint: string | undefined;
  readonly useFips: boolean;
  readonly useDualstack: boolean;
  /** A CA bundle file to trust instead of the system store. */
  readonly caBundle: string | undefined;
  /** The proxy the CLI would use for this endpoint, if any. */
  readonly proxy: string | undefined;
}

/** The region the CLI falls back to for STS when neither the target, the environment nor the profile names one. */
export const DEFAULT_STS_REGION = "us-east-1";

/** botocore's `ensure_boolean` for a string: exactly `true` in any case, blanks included (` true` is false). */
function truthy(value: string | undefined): boolean {
  return value?.toLowerCase() === "true";
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/** Where botocore's proxy lookup sees a configured endpoint: its untrimmed text, or no known host when blanks surround it. */
function configuredDestination(raw: string): ProxyDestination {
  return raw === raw.trim() ? destinationOf(raw) : { scheme: undefined, netloc: UNKNOWN_HOST };
}

/**
 * The endpoint botocore's ConfiguredEndpointProvider gives `service`, as
 * written: `AWS_ENDPOINT_URL_<SERVICE>`, `AWS_ENDPOINT_URL`, the profile's
 * `services` section, the profile's `endpoint_url`, the first that is not
 * empty (botocore skips an empty one), unless configured endpoints are
 * ignored. One that is only blanks is taken by botocore, and the CLI then
 * fails: refused.
 *
 * @throws ProbeRefusal BlankEndpointUrl.
 */
export function configuredEndpointOf(env: StsProbeInputs["env"], profile: IniSection, services: IniSection, service: EndpointService): string | undefined {
  if (truthy(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? profile.ignore_configured_endpoint_urls)) return undefined;
  const chosen = [env[`AWS_ENDPOINT_URL_${service.toUpperCase()}`], env.AWS_ENDPOINT_URL, services[`${service}.endpoint_url`], profile.endpoint_url].find(
    (value) => value !== undefined && value !== "",
  );
  if (chosen?.trim() === "") throw new ProbeRefusal("BlankEndpointUrl", `the configured ${service} endpoint is only blanks, which the AWS CLI cannot use`);
  return chosen;
}

/**
 * The CA bundle botocore verifies with: `AWS_CA_BUNDLE`, else the profile's
 * `ca_bundle`, else `REQUESTS_CA_BUNDLE` (botocore's EndpointCreator), each
 * when set at all. An empty one makes botocore verify no certificate at all:
 * refused, as is one with blanks around it (a file the CLI cannot open).
 *
 * @throws ProbeRefusal CaBundleDisablesVerification, CaBundleNotUsable.
 */
function caBundleOf(env: StsProbeInputs["env"], profile: IniSection): string | undefined {
  const chosen = env.AWS_CA_BUNDLE ?? profile.ca_bundle ?? env.REQUESTS_CA_BUNDLE;
  if (chosen === "") {
    throw new ProbeRefusal(
      "CaBundleDisablesVerification",
      "an empty AWS_CA_BUNDLE, ca_bundle or REQUESTS_CA_BUNDLE turns the AWS CLI's certificate verification off; remove it or name a CA file",
    );
  }
  if (chosen !== undefined && chosen !== chosen.trim()) throw new ProbeRefusal("CaBundleNotUsable", "the CA bundle path has blanks around it");
  return chosen;
}

/** The region variables of the child environment: AWS CLI v2 reads the first, v1 (and v2 after it) the second. */
const REGION_VARIABLES = ["AWS_REGION", "AWS_DEFAULT_REGION"] as const;

/**
 * Refuses a region variable of the child environment that is set but blank,
 * or has blanks around its value. What such a value means depends on who reads
 * it: botocore takes it as the region and fails (`Provided region_name ' '
 * doesn't match a supported format`, or an `sts..amazonaws.com` endpoint),
 * while the probe's own reading skipped an empty AWS_REGION, and a target's
 * pinned `--region` hides it from the CLI itself but not from the programs the
 * CLI starts with the same environment (a `credential_process` helper reading
 * AWS_REGION). One meaning for the child and the probe: not a region at all,
 * so the call is refused (the probe's inputs are the child's environment, so a
 * refusal here is the call's), pinned region or not. Unset is the way to say
 * "no region".
 *
 * @throws ProbeRefusal BlankRegion.
 */
export function assertRegionVariablesUsable(env: StsProbeInputs["env"]): void {
  for (const name of REGION_VARIABLES) {
    const value = env[name];
    if (value !== undefined && (value.trim() === "" || value !== value.trim())) {
      throw new ProbeRefusal(
        "BlankRegion",
        `${name} is set but empty, blank or has blanks around it, which the AWS CLI cannot use: remove it or name a region`,
      );
    }
  }
}

/** AWS CLI v1's region when the target pins none: AWS_DEFAULT_REGION when set, else the profile's (blank values were refused). */
function v1RegionOf(pinned: string | undefined, env: StsProbeInputs["env"], profile: IniSection): string | undefined {
  if (pinned !== undefined) return pinned;
  return env.AWS_DEFAULT_REGION ?? nonEmpty(profile.region);
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

/**
 * The STS route of `inputs`, given the profile's merged section (config file, credentials file over it) and its
 * `services` section of the config file.
 *
 * @throws ProbeRefusal where the CLI would fail or verify no certificate.
 */
export function stsRouteOf(inputs: StsProbeInputs, profile: IniSection, services: IniSection): StsRoute {
  const { env } = inputs;
  assertRegionVariablesUsable(env);
  // AWS CLI v1 takes AWS_DEFAULT_REGION, v2 AWS_REGION before it; either may be installed, so the proxy is judged for both.
  const v1Region = v1RegionOf(inputs.pinnedRegion, env, profile);
  const v2Region = inputs.pinnedRegion ?? env.AWS_REGION ?? v1Region;
  const region = v1Region ?? DEFAULT_STS_REGION;
  // botocore reads AWS_STS_REGIONAL_ENDPOINTS when set at all (even empty), else the profile's key.
  const stsRegional = env.AWS_STS_REGIONAL_ENDPOINTS ?? profile.sts_regional_endpoints;
  // With no region at all botocore resolves STS to its global host, whatever the setting (AWS CLI 1.45 here does).
  const useGlobalEndpoint = v1Region === undefined || stsRegional === "legacy";
  const rawEndpoint = configuredEndpointOf(env, profile, services, "sts");
  const useFips = truthy(env.AWS_USE_FIPS_ENDPOINT ?? profile.use_fips_endpoint);
  const useDualstack = truthy(env.AWS_USE_DUALSTACK_ENDPOINT ?? profile.use_dualstack_endpoint);
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
    ssoEndpoint: configuredEndpointOf(env, profile, services, "sso"),
    oidcEndpoint: configuredEndpointOf(env, profile, services, "sso_oidc"),
    useFips,
    useDualstack,
    caBundle: caBundleOf(env, profile),
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

/** The region of an SSO profile's requests: its `sso-session`'s `sso_region` (botocore takes the session's), else its own. */
export function ssoRegionOf(section: IniSection, session: IniSection | undefined): string | undefined {
  return nonEmpty(session?.sso_region ?? section.sso_region);
}

/**
 * The proxy the CLI would use for the SSO requests of an SSO profile (the
 * portal's GetRoleCredentials and, for an `sso_session`, the OIDC token
 * refresh), if any. Each service has its own configured endpoint (`sso`,
 * `sso_oidc`); one without gets its default hosts in `ssoRegion`, judged even
 * when the other service's endpoint is configured. The probe sends them
 * through the same handler as STS (the same timeouts and CA bundle) and, like
 * STS, never through a proxy: when one would apply, the check must fail rather
 * than go around it.
 * `ssoRegion` undefined (not found), or outside the partitions known here: every default SSO host is unknown, so any
 * proxy applies. The hosts are the region's partition's (`amazonaws.com.cn` in China); those of FIPS and dual-stack
 * variants are included with the plain ones: an extra host can only make the check stricter.
 */
export function ssoProxyOf(inputs: StsProbeInputs, route: StsRoute, ssoRegion: string | undefined): string | undefined {
  const variants = route.useFips || route.useDualstack;
  const hostsOf = (configured: string | undefined, service: readonly [string, string]): readonly ProxyDestination[] =>
    configured !== undefined
      ? [configuredDestination(configured)]
      : ssoRegion === undefined
        ? [UNKNOWN_HTTPS_HOST]
        : serviceDestinations(ssoRegion, variants, [service]);
  return firstProxy(inputs.env, [...hostsOf(route.ssoEndpoint, ["portal.sso", "portal.sso-fips"]), ...hostsOf(route.oidcEndpoint, ["oidc", "oidc-fips"])]);
}

/**
 * The proxy botocore's instance metadata fetcher would use, for a role whose
 * `credential_source` is `Ec2InstanceMetadata`: it takes the environment's
 * proxies for its base URL, plain HTTP (utils.IMDSFetcher: `_select_base_url`,
 * `get_environ_proxies`). The base URL is the configured endpoint
 * (`AWS_EC2_METADATA_SERVICE_ENDPOINT`, else the profile's
 * `ec2_metadata_service_endpoint`), else the IPv6 address when the endpoint
 * mode is `ipv6` (`AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE`, else the
 * profile's, any case), else `169.254.169.254`.
 */
export function metadataProxyOf(inputs: StsProbeInputs, profile: IniSection): string | undefined {
  const { env } = inputs;
  const configured = env.AWS_EC2_METADATA_SERVICE_ENDPOINT ?? profile.ec2_metadata_service_endpoint;
  const mode = env.AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE ?? profile.ec2_metadata_service_endpoint_mode;
  const destination: ProxyDestination =
    configured !== undefined && configured !== ""
      ? configuredDestination(configured)
      : { scheme: "http", netloc: mode?.toLowerCase() === "ipv6" ? "[fd00:ec2::254]" : "169.254.169.254" };
  return firstProxy(env, [destination]);
}
