/**
 * Where the AWS CLI would send the STS request, and how: region, endpoint,
 * FIPS/dual-stack, CA bundle and proxy, resolved from the child environment and
 * the profile's section of the config file with the CLI's precedence
 * (environment over config file; `AWS_ENDPOINT_URL_STS` over the profile's
 * `services` section over `AWS_ENDPOINT_URL` over the profile's `endpoint_url`).
 * Pure: the config file is parsed by the caller.
 */
import type { StsProbeInputs } from "./aws-call-plan.js";

/** A profile's keys (and its `services` section's), as the SDK's INI loader returns them. */
export type IniSection = Readonly<Record<string, string | undefined>>;

export interface StsRoute {
  readonly region: string;
  /** undefined: the SDK's default STS endpoint for the region. */
  readonly endpoint: string | undefined;
  /**
   * The endpoint of the SSO service for an SSO profile, with the CLI's
   * precedence for the `sso` service (`AWS_ENDPOINT_URL_SSO`, the profile's
   * `services` section, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`), never
   * the STS-only one; undefined: the SDK's default for the profile's `sso_region`.
   */
  readonly ssoEndpoint: string | undefined;
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

/** True when `host` matches a NO_PROXY list (`*`, exact hosts, `.suffix` or `suffix` domains). */
export function bypassesProxy(host: string, noProxy: string | undefined): boolean {
  const entries = (noProxy ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase().replace(/:\d+$/u, ""))
    .filter((entry) => entry !== "");
  const name = host.toLowerCase();
  return entries.some((entry) => entry === "*" || name === entry.replace(/^\./u, "") || name.endsWith(entry.startsWith(".") ? entry : `.${entry}`));
}

/** The STS route of `inputs`, given the profile section and its `services` section of the config file. */
export function stsRouteOf(inputs: StsProbeInputs, profile: IniSection, services: IniSection): StsRoute {
  const { env } = inputs;
  const region = inputs.pinnedRegion ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? nonEmpty(profile.region) ?? DEFAULT_STS_REGION;
  const ignoreConfigured = truthy(env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? profile.ignore_configured_endpoint_urls);
  const endpoint = ignoreConfigured
    ? undefined
    : (nonEmpty(env.AWS_ENDPOINT_URL_STS) ?? nonEmpty(services["sts.endpoint_url"]) ?? nonEmpty(env.AWS_ENDPOINT_URL) ?? nonEmpty(profile.endpoint_url));
  const ssoEndpoint = ignoreConfigured
    ? undefined
    : (nonEmpty(env.AWS_ENDPOINT_URL_SSO) ?? nonEmpty(services["sso.endpoint_url"]) ?? nonEmpty(env.AWS_ENDPOINT_URL) ?? nonEmpty(profile.endpoint_url));
  const useFips = truthy(env.AWS_USE_FIPS_ENDPOINT ?? profile.use_fips_endpoint);
  const useDualstack = truthy(env.AWS_USE_DUALSTACK_ENDPOINT ?? profile.use_dualstack_endpoint);
  const caBundle = nonEmpty(env.AWS_CA_BUNDLE) ?? nonEmpty(profile.ca_bundle);
  const proxy = firstProxy(env, endpoint !== undefined ? [endpoint] : serviceUrls(region, useFips || useDualstack, [["sts", "sts-fips"]]));
  return { region, endpoint, ssoEndpoint, useFips, useDualstack, caBundle, proxy };
}

/** The DNS suffixes of the partitions whose host names are known here (the SDK's partition table). */
const PARTITIONS: readonly (readonly [RegExp, { readonly dns: string; readonly dualStack: string }])[] = [
  [/^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/u, { dns: "amazonaws.com", dualStack: "api.aws" }],
  [/^us-gov-\w+-\d+$/u, { dns: "amazonaws.com", dualStack: "api.aws" }],
  [/^cn-\w+-\d+$/u, { dns: "amazonaws.com.cn", dualStack: "api.amazonwebservices.com.cn" }],
];

/** A host no NO_PROXY entry but `*` excludes: stands for hosts not known here, so any proxy applies (fail closed). */
const UNKNOWN_HOST_URL = "https://unknown-aws-host.invalid";

/**
 * The default URLs of `services` (host name prefixes, plain and FIPS: `sts` and `sts-fips`)
 * in `region`, in the region's partition (`amazonaws.com`, `amazonaws.com.cn`
 * for China); with `variants`, also the FIPS (`<prefix>-fips`) and dual-stack
 * hosts (an extra host can only make the check stricter). A region outside the
 * partitions known here (the iso partitions, say) gives a host no NO_PROXY
 * entry but `*` excludes: its real hosts are unknown, so any proxy applies.
 */
function serviceUrls(region: string, variants: boolean, services: readonly (readonly [string, string])[]): readonly string[] {
  const partition = PARTITIONS.find(([pattern]) => pattern.test(region))?.[1];
  if (partition === undefined) return [UNKNOWN_HOST_URL];
  return services.flatMap(([service, fips]) => {
    const plain = `https://${service}.${region}.${partition.dns}`;
    if (!variants) return [plain];
    return [
      plain,
      `https://${fips}.${region}.${partition.dns}`,
      `https://${service}.${region}.${partition.dualStack}`,
      `https://${fips}.${region}.${partition.dualStack}`,
    ];
  });
}

/** The first proxy the CLI would use for one of `urls`, if any. */
function firstProxy(env: StsProbeInputs["env"], urls: readonly string[]): string | undefined {
  for (const url of urls) {
    const proxy = proxyFor(env, new URL(url));
    if (proxy !== undefined) return proxy;
  }
  return undefined;
}

/** The proxy the CLI would use for `url` (the variable for its scheme), unless NO_PROXY excludes its host. */
function proxyFor(env: StsProbeInputs["env"], url: URL): string | undefined {
  const proxyVariable =
    url.protocol === "http:"
      ? (env.HTTP_PROXY ?? env.http_proxy ?? env.ALL_PROXY ?? env.all_proxy)
      : (env.HTTPS_PROXY ?? env.https_proxy ?? env.ALL_PROXY ?? env.all_proxy);
  const proxy = nonEmpty(proxyVariable);
  return proxy !== undefined && !bypassesProxy(url.hostname, env.NO_PROXY ?? env.no_proxy) ? proxy : undefined;
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
  const urls =
    route.ssoEndpoint !== undefined
      ? [route.ssoEndpoint]
      : ssoRegion === undefined
        ? [UNKNOWN_HOST_URL]
        : serviceUrls(ssoRegion, route.useFips || route.useDualstack, [
            ["portal.sso", "portal.sso-fips"],
            ["oidc", "oidc-fips"],
          ]);
  return firstProxy(inputs.env, urls);
}
