/** The STS route follows the AWS CLI's precedence, from the child environment and the profile only. */
import { describe, expect, test } from "vitest";
import { fc, prop } from "../../../support/property-test.js";
import { stsInputsOf } from "../../../../src/pipeline/identity/aws-call-plan.js";
import { metadataProxyOf, ssoProxyOf, stsRouteOf } from "../../../../src/pipeline/identity/sts-endpoint.js";
import { bypassesProxy, proxyFor } from "../../../../src/pipeline/identity/urllib-proxy.js";
import { herePlace } from "../../../support/process-place.js";

const route = (env: Record<string, string>, profile: Record<string, string> = {}, services: Record<string, string> = {}, region?: string) =>
  stsRouteOf(stsInputsOf({ HOME: "/h", ...env }, "p", region, herePlace()), profile, services);

describe("stsRouteOf", () => {
  test("endpoint: AWS_ENDPOINT_URL_STS, then AWS_ENDPOINT_URL, then the services section, then the profile's endpoint_url (botocore's order)", () => {
    const profile = { endpoint_url: "http://profile" };
    const services = { "sts.endpoint_url": "http://services" };
    expect(route({ AWS_ENDPOINT_URL_STS: "http://sts", AWS_ENDPOINT_URL: "http://global" }, profile, services).endpoint).toBe("http://sts");
    expect(route({ AWS_ENDPOINT_URL: "http://global" }, profile, services).endpoint).toBe("http://global");
    expect(route({}, profile, services).endpoint).toBe("http://services");
    expect(route({ AWS_ENDPOINT_URL: "http://global" }, profile).endpoint).toBe("http://global");
    expect(route({}, profile).endpoint).toBe("http://profile");
    expect(route({}, {}).endpoint).toBeUndefined();
    expect(route({ AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "true", AWS_ENDPOINT_URL_STS: "http://sts" }, profile).endpoint).toBeUndefined();
    expect(route({}, { ...profile, ignore_configured_endpoint_urls: "true" }).endpoint).toBeUndefined();
  });

  test("region: the target's pinned region, then AWS_DEFAULT_REGION, then the profile's, then us-east-1", () => {
    expect(route({ AWS_DEFAULT_REGION: "eu-west-1" }, { region: "eu-west-2" }, {}, "eu-west-3").region).toBe("eu-west-3");
    expect(route({ AWS_DEFAULT_REGION: "eu-west-1" }, { region: "eu-west-2" }).region).toBe("eu-west-1");
    expect(route({}, { region: "eu-west-2" }).region).toBe("eu-west-2");
    expect(route({}, {}).region).toBe("us-east-1");
  });

  test("CA bundle and FIPS/dual-stack: environment over profile", () => {
    expect(route({ AWS_CA_BUNDLE: "/env.pem" }, { ca_bundle: "/profile.pem" }).caBundle).toBe("/env.pem");
    expect(route({}, { ca_bundle: "/profile.pem" }).caBundle).toBe("/profile.pem");
    expect(route({}, { use_fips_endpoint: "true" })).toMatchObject({ useFips: true, useDualstack: false });
    expect(route({ AWS_USE_DUALSTACK_ENDPOINT: "true" }, {})).toMatchObject({ useFips: false, useDualstack: true });
  });

  test("proxy: the variable for the endpoint's scheme, unless NO_PROXY excludes the host", () => {
    expect(route({ HTTPS_PROXY: "http://proxy:3128" }).proxy).toBe("http://proxy:3128");
    expect(route({ HTTPS_PROXY: "http://proxy:3128" }, { endpoint_url: "http://127.0.0.1:1" }).proxy).toBeUndefined();
    expect(route({ HTTP_PROXY: "http://proxy:3128", NO_PROXY: "127.0.0.1" }, { endpoint_url: "http://127.0.0.1:1" }).proxy).toBeUndefined();
    expect(route({ https_proxy: "http://proxy:3128", no_proxy: ".amazonaws.com" }).proxy).toBeUndefined();
    expect(bypassesProxy("sts.eu-west-1.amazonaws.com", "amazonaws.com")).toBe(true);
    expect(bypassesProxy("evilamazonaws.com", "amazonaws.com")).toBe(false);
    expect(bypassesProxy("anything", "*")).toBe(true);
  });
});

describe("ssoProxyOf", () => {
  const sso = (env: Record<string, string>, region: string | undefined, profile: Record<string, string> = {}) => {
    const inputs = stsInputsOf({ HOME: "/h", ...env }, "p", undefined, herePlace());
    return ssoProxyOf(inputs, stsRouteOf(inputs, profile, {}), region);
  };

  test("the SSO endpoint's own host decides, not STS's: NO_PROXY for STS alone leaves the SSO request proxied", () => {
    const env = { HTTPS_PROXY: "http://proxy:3128", AWS_ENDPOINT_URL_STS: "https://sts.internal", NO_PROXY: "sts.internal" };
    expect(sso(env, "eu-west-1")).toBe("http://proxy:3128");
    expect(sso({ ...env, NO_PROXY: "sts.internal,.amazonaws.com" }, "eu-west-1")).toBeUndefined();
    // The OIDC host stays the region's default (oidc.eu-west-1.amazonaws.com), whatever AWS_ENDPOINT_URL_SSO says.
    expect(sso({ ...env, AWS_ENDPOINT_URL_SSO: "http://127.0.0.1:1" }, "eu-west-1")).toBe("http://proxy:3128");
    expect(sso({ ...env, NO_PROXY: "sts.internal,.amazonaws.com", AWS_ENDPOINT_URL_SSO: "http://127.0.0.1:1" }, "eu-west-1")).toBeUndefined();
    expect(sso({ ...env, AWS_ENDPOINT_URL_SSO: "https://sso.internal" }, "eu-west-1")).toBe("http://proxy:3128");
  });

  test("the OIDC host counts too, an unknown SSO region fails closed, and no proxy variable means no proxy", () => {
    expect(sso({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: "portal.sso.eu-west-1.amazonaws.com" }, "eu-west-1")).toBe("http://proxy:3128");
    expect(sso({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com" }, undefined)).toBe("http://proxy:3128");
    expect(sso({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: "*" }, undefined)).toBeUndefined();
    expect(sso({}, "eu-west-1")).toBeUndefined();
  });

  test("China regions use amazonaws.com.cn hosts: NO_PROXY .amazonaws.com leaves them proxied, .amazonaws.com.cn excludes them", () => {
    const env = { HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com" };
    expect(sso(env, "cn-north-1")).toBe("http://proxy:3128");
    expect(sso({ ...env, NO_PROXY: ".amazonaws.com.cn" }, "cn-north-1")).toBeUndefined();
    expect(sso({ ...env, NO_PROXY: ".amazonaws.com.cn" }, "cn-north-1", { use_dualstack_endpoint: "true" })).toBe("http://proxy:3128");
    expect(sso({ ...env, NO_PROXY: ".amazonaws.com.cn,.api.amazonwebservices.com.cn" }, "cn-north-1", { use_dualstack_endpoint: "true" })).toBeUndefined();
    expect(sso(env, "us-gov-west-1")).toBeUndefined();
  });

  test("a region outside the partitions known here (iso: c2s.ic.gov, sc2s.sgov.gov) fails closed: any proxy applies unless NO_PROXY is *", () => {
    for (const region of ["us-iso-east-1", "us-isob-east-1", "eu-isoe-west-1", "xx-unknown-1"]) {
      expect(sso({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com,.c2s.ic.gov,.sc2s.sgov.gov" }, region)).toBe("http://proxy:3128");
      expect(sso({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: "*" }, region)).toBeUndefined();
    }
  });
});

describe("stsRouteOf proxy per partition", () => {
  test("STS in China (sts.cn-north-1.amazonaws.com.cn) is proxied despite NO_PROXY .amazonaws.com, and not with .amazonaws.com.cn", () => {
    expect(route({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com" }, {}, {}, "cn-north-1").proxy).toBe("http://proxy:3128");
    expect(route({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com.cn" }, {}, {}, "cn-north-1").proxy).toBeUndefined();
    expect(route({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com" }, { region: "cn-northwest-1" }).proxy).toBe("http://proxy:3128");
  });

  test("STS in an iso region fails closed, and a dual-stack STS host (api.aws) is judged with the plain one", () => {
    expect(route({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com,.c2s.ic.gov" }, {}, {}, "us-iso-east-1").proxy).toBe("http://proxy:3128");
    expect(route({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com" }, { use_dualstack_endpoint: "true" }).proxy).toBe("http://proxy:3128");
    expect(route({ HTTPS_PROXY: "http://proxy:3128", NO_PROXY: ".amazonaws.com,.api.aws" }, { use_dualstack_endpoint: "true" }).proxy).toBeUndefined();
  });
});

/** Python urllib's rules as botocore applies them (urllib-proxy.ts); each case below was a "no proxy" where the CLI uses one. */
describe("proxy variables and NO_PROXY read as Python's urllib reads them", () => {
  const proxy = "http://proxy:3128";

  test("NO_PROXY exempts every host only when it is exactly *: a * among other entries (or with blanks) is a name that matches no host", () => {
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "localhost,*" }).proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "*,localhost" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: " * " }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "*" }, {}, {}, "eu-west-1").proxy).toBeUndefined();
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "*.amazonaws.com" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
  });

  test("a lowercase proxy variable wins: an empty HTTPS_PROXY does not hide https_proxy, an empty https_proxy cancels HTTPS_PROXY, any case counts", () => {
    expect(route({ HTTPS_PROXY: "", https_proxy: proxy }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: "http://upper:1", https_proxy: proxy }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, https_proxy: "" }, {}, {}, "eu-west-1").proxy).toBeUndefined();
    expect(route({ Https_Proxy: proxy }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_proxy: proxy, HTTPS_PROXY: "" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
  });

  test("a lowercase no_proxy wins over NO_PROXY, and an empty one cancels it", () => {
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: ".amazonaws.com", no_proxy: "localhost" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: ".amazonaws.com", no_proxy: "" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "localhost", no_proxy: ".amazonaws.com" }, {}, {}, "eu-west-1").proxy).toBeUndefined();
    // Two lowercase-suffixed spellings: environment order decides, so only what both exempt is exempt.
    expect(route({ HTTPS_PROXY: proxy, no_proxy: ".amazonaws.com", NO_proxy: "localhost" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
  });

  test("sts_regional_endpoints = legacy (or no setting, older botocore's default, or no region at all): sts.amazonaws.com is judged, and the probe asks it", () => {
    const env = { HTTPS_PROXY: proxy, NO_PROXY: ".us-east-1.amazonaws.com" };
    expect(route({ ...env, AWS_STS_REGIONAL_ENDPOINTS: "legacy" }, {}, {}, "us-east-1").proxy).toBe(proxy);
    expect(route(env, { sts_regional_endpoints: "legacy" }, {}, "us-east-1").proxy).toBe(proxy);
    expect(route(env, {}, {}, "us-east-1").proxy).toBe(proxy);
    expect(route({ ...env, AWS_STS_REGIONAL_ENDPOINTS: "regional" }, {}, {}, "us-east-1").proxy).toBeUndefined();
    expect(route({ ...env, AWS_STS_REGIONAL_ENDPOINTS: "regional" }).proxy).toBe(proxy);
    expect(route({ ...env, AWS_STS_REGIONAL_ENDPOINTS: "regional", NO_PROXY: ".us-east-1.amazonaws.com,sts.amazonaws.com" }).proxy).toBeUndefined();
    // eu-south-1 is not a legacy-global region: its own host only.
    expect(
      route({ HTTPS_PROXY: proxy, NO_PROXY: ".eu-south-1.amazonaws.com", AWS_STS_REGIONAL_ENDPOINTS: "legacy" }, {}, {}, "eu-south-1").proxy,
    ).toBeUndefined();
    expect(route({ AWS_STS_REGIONAL_ENDPOINTS: "legacy" }, {}, {}, "us-east-1").useGlobalEndpoint).toBe(true);
    expect(route({}, { sts_regional_endpoints: "legacy" }, {}, "eu-west-1").useGlobalEndpoint).toBe(true);
    expect(route({ AWS_STS_REGIONAL_ENDPOINTS: "regional" }, { sts_regional_endpoints: "legacy" }, {}, "eu-west-1").useGlobalEndpoint).toBe(false);
    expect(route({}, {}).useGlobalEndpoint).toBe(true);
    expect(route({}, {}, {}, "eu-west-1").useGlobalEndpoint).toBe(false);
  });

  test("a host not known here (an iso region, an SSO region not found) is exempted by no entry, .invalid included: only by a NO_PROXY of exactly *", () => {
    for (const noProxy of [".invalid", "invalid", "unknown-aws-host.invalid", "aws-host.invalid", ".c2s.ic.gov,.invalid"]) {
      expect(route({ HTTPS_PROXY: proxy, NO_PROXY: noProxy }, {}, {}, "us-iso-east-1").proxy).toBe(proxy);
      const inputs = stsInputsOf({ HOME: "/h", HTTPS_PROXY: proxy, NO_PROXY: `.amazonaws.com,${noProxy}` }, "p", "eu-west-1", herePlace());
      expect(ssoProxyOf(inputs, stsRouteOf(inputs, {}, {}), undefined)).toBe(proxy);
    }
  });

  test("AWS_REGION (AWS CLI v2 reads it before AWS_DEFAULT_REGION, v1 ignores it): the hosts of both regions are judged", () => {
    const env = { HTTPS_PROXY: proxy, NO_PROXY: ".amazonaws.com", AWS_DEFAULT_REGION: "eu-west-1" };
    expect(route({ ...env, AWS_REGION: "cn-north-1" }).proxy).toBe(proxy);
    expect(route({ ...env, AWS_REGION: "cn-north-1", NO_PROXY: ".amazonaws.com,.amazonaws.com.cn" }).proxy).toBeUndefined();
    expect(route({ ...env, NO_PROXY: ".eu-west-1.amazonaws.com", AWS_REGION: "eu-west-3", AWS_STS_REGIONAL_ENDPOINTS: "regional" }).proxy).toBe(proxy);
    expect(route({ ...env, AWS_REGION: "cn-north-1" }, {}, {}, "eu-west-1").proxy).toBeUndefined();
  });

  test("an entry with a port exempts only that very netloc: never a default host, which has no port", () => {
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "sts.eu-west-1.amazonaws.com:443" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: ".amazonaws.com:443" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    const sts = (noProxy: string) => route({ HTTPS_PROXY: proxy, NO_PROXY: noProxy, AWS_ENDPOINT_URL_STS: "https://sts.internal:8443/" }).proxy;
    expect(sts("sts.internal:9443")).toBe(proxy);
    expect(sts("sts.internal:8443")).toBeUndefined();
    expect(sts("sts.internal")).toBeUndefined();
    expect(sts(".internal")).toBeUndefined();
  });

  test("the endpoint is judged by its own text, as urlparse gives it, not by a normalised URL; no CIDR ranges", () => {
    // WHATWG URL reads 0x7f.1 as 127.0.0.1; Python's netloc stays 0x7f.1:1.
    expect(route({ HTTP_PROXY: proxy, NO_PROXY: "127.0.0.1", AWS_ENDPOINT_URL_STS: "http://0x7f.1:1" }).proxy).toBe(proxy);
    expect(route({ HTTP_PROXY: proxy, NO_PROXY: "127.0.0.1", AWS_ENDPOINT_URL_STS: "http://127.0.0.1:1" }).proxy).toBeUndefined();
    expect(route({ HTTP_PROXY: proxy, NO_PROXY: "10.0.0.0/8", AWS_ENDPOINT_URL_STS: "http://10.1.2.3:1" }).proxy).toBe(proxy);
    // User info or blanks around the URL: no known host.
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "sts.internal", AWS_ENDPOINT_URL_STS: "https://u@sts.internal" }).proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "sts.internal", AWS_ENDPOINT_URL_STS: "https://sts.internal\n" }).proxy).toBe(proxy);
  });

  test("entries are stripped of Python's blanks (U+001C, U+0085), not JavaScript's (U+FEFF stays part of the name)", () => {
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "\ufeff.amazonaws.com" }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "\x1c.amazonaws.com\x85, localhost" }, {}, {}, "eu-west-1").proxy).toBeUndefined();
    expect(route({ HTTPS_PROXY: proxy, NO_PROXY: "localhost, ..AMAZONAWS.com" }, {}, {}, "eu-west-1").proxy).toBeUndefined();
  });

  test("ALL_PROXY counts too (botocore reads only the scheme's variable; counting it is stricter); CGI's REQUEST_METHOD changes nothing", () => {
    expect(route({ ALL_PROXY: proxy }, {}, {}, "eu-west-1").proxy).toBe(proxy);
    expect(route({ all_proxy: proxy, NO_PROXY: ".amazonaws.com" }, {}, {}, "eu-west-1").proxy).toBeUndefined();
    expect(route({ HTTP_PROXY: proxy, REQUEST_METHOD: "GET", AWS_ENDPOINT_URL_STS: "http://sts.internal" }).proxy).toBe(proxy);
  });

  const variable = fc.constantFrom("HTTPS_PROXY", "https_proxy", "Https_Proxy", "HTTPS_proxy", "NO_PROXY", "no_proxy", "No_Proxy", "ALL_PROXY", "all_proxy");
  const value = fc.constantFrom("", proxy, "*", "localhost,*", ".amazonaws.com", "sts.eu-west-1.amazonaws.com:443", " .amazonaws.com ,localhost");
  const environment = fc.dictionary(variable, value, { maxKeys: 6 });
  const host = fc.constantFrom("sts.eu-west-1.amazonaws.com", "sts.internal:8443", "127.0.0.1");

  prop([environment, host, fc.constantFrom("HTTPS_PROXY", "Https_Proxy", "NO_PROXY", "No_Proxy", "ALL_PROXY")])(
    "an empty variable whose name does not end in a lowercase _proxy changes nothing (urllib skips it)",
    (env, netloc, name) => {
      fc.pre(!(name in env));
      const destination = { scheme: "https", netloc };
      expect(proxyFor({ ...env, [name]: "" }, destination)).toBe(proxyFor(env, destination));
    },
  );

  prop([fc.string(), host])("a * added to a NO_PROXY list exempts nothing more (only a NO_PROXY of exactly * exempts every host)", (list, netloc) => {
    fc.pre(list !== "*");
    expect(bypassesProxy(netloc, `${list},*`)).toBe(bypassesProxy(netloc, list));
    expect(bypassesProxy(netloc, `*,${list}`)).toBe(bypassesProxy(netloc, list));
  });

  prop([fc.array(fc.oneof(fc.string(), fc.constantFrom("invalid", ".invalid", "unknown-aws-host.invalid", "*", " *")), { maxLength: 4 })])(
    "an iso region's hosts, not known here, are exempted by no NO_PROXY but exactly *",
    (entries) => {
      const noProxy = entries.join(",");
      fc.pre(noProxy !== "*");
      expect(route({ HTTPS_PROXY: proxy, NO_PROXY: noProxy }, {}, {}, "us-iso-east-1").proxy).toBe(proxy);
    },
  );
});

/** Review findings: environments in which AWS CLI v1 (botocore 1.43.11, CPython 3.11) sends STS or SSO traffic through the proxy. */
const reviewProxy = "http://127.0.0.1:18888";
const reviewRoute = (env: Record<string, string>, profile: Record<string, string> = {}, services: Record<string, string> = {}, region?: string) =>
  stsRouteOf(stsInputsOf({ HOME: "/h", ...env }, "p", region, herePlace()), profile, services);
const reviewSso = (env: Record<string, string>, ssoRegion: string | undefined, profile: Record<string, string> = {}, services: Record<string, string> = {}) => {
  const inputs = stsInputsOf({ HOME: "/h", ...env }, "p", undefined, herePlace());
  return ssoProxyOf(inputs, stsRouteOf(inputs, profile, services), ssoRegion);
};

describe("R1: configured endpoint precedence is botocore's (ConfiguredEndpointProvider): both variables, then the services section, then endpoint_url", () => {
  test("AWS_ENDPOINT_URL wins over the profile's services section", () => {
    // CLI: CONNECT global.example:443 through the proxy (botocore/configprovider.py _ENDPOINT_URL_LOOKUP_ORDER).
    const r = reviewRoute(
      { HTTPS_PROXY: reviewProxy, NO_PROXY: "sts.internal", AWS_ENDPOINT_URL: "https://global.example" },
      { services: "s" },
      { "sts.endpoint_url": "https://sts.internal" },
    );
    expect(r.endpoint).toBe("https://global.example");
    expect(r.proxy).toBe(reviewProxy);
  });
  test("the same for SSO: AWS_ENDPOINT_URL wins over services.sso", () => {
    expect(
      reviewSso(
        { HTTPS_PROXY: reviewProxy, NO_PROXY: "sso.internal,.amazonaws.com", AWS_ENDPOINT_URL: "https://global.example" },
        "eu-west-1",
        { services: "s" },
        { "sso.endpoint_url": "https://sso.internal" },
      ),
    ).toBe(reviewProxy);
  });
});

describe("R2: SSO OIDC (the sso_session token refresh) is its own service: AWS_ENDPOINT_URL_SSO_OIDC / services sso_oidc, never AWS_ENDPOINT_URL_SSO", () => {
  test("AWS_ENDPOINT_URL_SSO_OIDC names a proxied host", () => {
    // CLI: CONNECT oidc.corp.example:443 (SSOTokenProvider's sso-oidc client, token within 15 min of expiry).
    expect(reviewSso({ HTTPS_PROXY: reviewProxy, NO_PROXY: ".amazonaws.com", AWS_ENDPOINT_URL_SSO_OIDC: "https://oidc.corp.example" }, "eu-west-1")).toBe(
      reviewProxy,
    );
  });
  test("a services section's sso_oidc names a proxied host", () => {
    expect(
      reviewSso(
        { HTTPS_PROXY: reviewProxy, NO_PROXY: ".amazonaws.com" },
        "eu-west-1",
        { services: "s" },
        { "sso_oidc.endpoint_url": "https://oidc.corp.example" },
      ),
    ).toBe(reviewProxy);
  });
  test("AWS_ENDPOINT_URL_SSO does not move the OIDC host: the default oidc.<region> host is still reached", () => {
    // CLI: CONNECT oidc.eu-west-1.amazonaws.com:443 although NO_PROXY exempts the SSO endpoint and STS.
    expect(
      reviewSso(
        { HTTPS_PROXY: reviewProxy, NO_PROXY: "sso.corp.example,sts.eu-west-1.amazonaws.com", AWS_ENDPOINT_URL_SSO: "https://sso.corp.example" },
        "eu-west-1",
      ),
    ).toBe(reviewProxy);
  });
});

/** Values read as botocore reads them; where the CLI would fail or verify no certificate, the route is refused. */
describe("stsRouteOf reads values as botocore does", () => {
  const proxy = "http://proxy:3128";
  /** The refusal code of `run`, undefined when it returns. */
  const refusalOf = (run: () => unknown): string | undefined => {
    try {
      run();
    } catch (error) {
      return (error as { code?: string }).code ?? "thrown";
    }
    return undefined;
  };

  test("a boolean is exactly true in any case, blanks not stripped (ensure_boolean): ` true` is false", () => {
    expect(route({ AWS_USE_FIPS_ENDPOINT: " true" })).toMatchObject({ useFips: false });
    expect(route({ AWS_USE_DUALSTACK_ENDPOINT: "true\n" })).toMatchObject({ useDualstack: false });
    expect(route({ AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: " true", AWS_ENDPOINT_URL_STS: "https://sts.internal" }).endpoint).toBe("https://sts.internal");
    expect(route({ AWS_USE_FIPS_ENDPOINT: "TRUE" })).toMatchObject({ useFips: true });
  });

  test("a configured endpoint that is only blanks is taken by botocore (it skips only an empty one), and the CLI fails: refused", () => {
    expect(refusalOf(() => route({ AWS_ENDPOINT_URL_STS: " " }, { endpoint_url: "https://sts.internal" }))).toBe("BlankEndpointUrl");
    expect(refusalOf(() => route({ AWS_ENDPOINT_URL: "\t" }))).toBe("BlankEndpointUrl");
    expect(route({ AWS_ENDPOINT_URL_STS: "", AWS_ENDPOINT_URL: "https://global.example" }).endpoint).toBe("https://global.example");
  });

  test("a set but blank AWS_DEFAULT_REGION is taken by botocore and fails the CLI: refused", () => {
    expect(refusalOf(() => route({ AWS_DEFAULT_REGION: "" }, { region: "eu-west-1" }))).toBe("BlankRegion");
    expect(refusalOf(() => route({ AWS_DEFAULT_REGION: " eu-west-1" }))).toBe("BlankRegion");
  });

  // One meaning for the child and the probe: a blank region variable is no region, and the call does not run, whether the
  // target pins a region or not (--region hides it from the CLI, not from the programs the CLI starts with that environment).
  test.each([
    ["AWS_REGION", ""],
    ["AWS_REGION", " "],
    ["AWS_REGION", "\t"],
    ["AWS_REGION", " eu-west-1"],
    ["AWS_REGION", "eu-west-1\n"],
    ["AWS_DEFAULT_REGION", ""],
    ["AWS_DEFAULT_REGION", "  "],
  ])("a blank %s (%j) is refused, with or without a pinned region", (name, value) => {
    const env = { [name]: value, ...(name === "AWS_REGION" ? { AWS_DEFAULT_REGION: "eu-west-1" } : {}) };
    expect(refusalOf(() => route(env))).toBe("BlankRegion");
    expect(refusalOf(() => route(env, {}, {}, "eu-west-2"))).toBe("BlankRegion");
  });

  test("CA bundle: AWS_CA_BUNDLE, then the profile's ca_bundle, then REQUESTS_CA_BUNDLE, each when set at all; an empty one is refused", () => {
    expect(route({ REQUESTS_CA_BUNDLE: "/requests.pem" }).caBundle).toBe("/requests.pem");
    expect(route({ REQUESTS_CA_BUNDLE: "/requests.pem" }, { ca_bundle: "/profile.pem" }).caBundle).toBe("/profile.pem");
    expect(route({ AWS_CA_BUNDLE: "/env.pem", REQUESTS_CA_BUNDLE: "/requests.pem" }, { ca_bundle: "/profile.pem" }).caBundle).toBe("/env.pem");
    // botocore takes the empty AWS_CA_BUNDLE (set), not the profile's file, and then verifies nothing.
    expect(refusalOf(() => route({ AWS_CA_BUNDLE: "" }, { ca_bundle: "/profile.pem" }))).toBe("CaBundleDisablesVerification");
    expect(refusalOf(() => route({ REQUESTS_CA_BUNDLE: "" }))).toBe("CaBundleDisablesVerification");
    expect(refusalOf(() => route({ AWS_CA_BUNDLE: " /env.pem" }))).toBe("CaBundleNotUsable");
  });

  test("instance metadata: the proxy for http://169.254.169.254 (or the configured endpoint, or the IPv6 address in ipv6 mode)", () => {
    const imds = (env: Record<string, string>, profile: Record<string, string> = {}) =>
      metadataProxyOf(stsInputsOf({ HOME: "/h", ...env }, "p", undefined, herePlace()), profile);
    expect(imds({ HTTP_PROXY: proxy })).toBe(proxy);
    expect(imds({ HTTPS_PROXY: proxy })).toBeUndefined();
    expect(imds({ HTTP_PROXY: proxy, NO_PROXY: "169.254.169.254" })).toBeUndefined();
    expect(imds({ HTTP_PROXY: proxy, NO_PROXY: "169.254.169.254", AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE: "IPv6" })).toBe(proxy);
    expect(imds({ HTTP_PROXY: proxy, NO_PROXY: "169.254.169.254" }, { ec2_metadata_service_endpoint: "http://imds.internal" })).toBe(proxy);
  });
});
