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
  const proxy = proxyFor(env, new URL(endpoint ?? `https://sts.${region}.amazonaws.com`));
  return { region, endpoint, ssoEndpoint, useFips, useDualstack, caBundle, proxy };
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
 * `ssoRegion` undefined (not found): every default SSO host is unknown, so any proxy applies.
 * Hosts of FIPS and dual-stack variants are included with the plain ones: an extra host can only make the check stricter.
 */
export function ssoProxyOf(inputs: StsProbeInputs, route: StsRoute, ssoRegion: string | undefined): string | undefined {
  const urls =
    route.ssoEndpoint !== undefined
      ? [route.ssoEndpoint]
      : ssoRegion === undefined
        ? ["https://unknown-sso-region.invalid"]
        : [
            `https://portal.sso.${ssoRegion}.amazonaws.com`,
            `https://oidc.${ssoRegion}.amazonaws.com`,
            ...(route.useFips || route.useDualstack
              ? [
                  `https://portal.sso-fips.${ssoRegion}.amazonaws.com`,
                  `https://oidc-fips.${ssoRegion}.amazonaws.com`,
                  `https://portal.sso.${ssoRegion}.api.aws`,
                  `https://oidc.${ssoRegion}.api.aws`,
                ]
              : []),
          ];
  for (const url of urls) {
    const proxy = proxyFor(inputs.env, new URL(url));
    if (proxy !== undefined) return proxy;
  }
  return undefined;
}
