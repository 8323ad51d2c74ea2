/** The STS route follows the AWS CLI's precedence, from the child environment and the profile only. */
import { describe, expect, test } from "vitest";
import { stsInputsOf } from "../../../../src/pipeline/identity/aws-call-plan.js";
import { ssoProxyOf, stsRouteOf } from "../../../../src/pipeline/identity/sts-endpoint.js";
import { bypassesProxy } from "../../../../src/pipeline/identity/urllib-proxy.js";

const route = (env: Record<string, string>, profile: Record<string, string> = {}, services: Record<string, string> = {}, region?: string) =>
  stsRouteOf(stsInputsOf({ HOME: "/h", ...env }, "p", region), profile, services);

describe("stsRouteOf", () => {
  test("endpoint: AWS_ENDPOINT_URL_STS, then the services section, then AWS_ENDPOINT_URL, then the profile's endpoint_url", () => {
    const profile = { endpoint_url: "http://profile" };
    const services = { "sts.endpoint_url": "http://services" };
    expect(route({ AWS_ENDPOINT_URL_STS: "http://sts", AWS_ENDPOINT_URL: "http://global" }, profile, services).endpoint).toBe("http://sts");
    expect(route({ AWS_ENDPOINT_URL: "http://global" }, profile, services).endpoint).toBe("http://services");
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
    const inputs = stsInputsOf({ HOME: "/h", ...env }, "p", undefined);
    return ssoProxyOf(inputs, stsRouteOf(inputs, profile, {}), region);
  };

  test("the SSO endpoint's own host decides, not STS's: NO_PROXY for STS alone leaves the SSO request proxied", () => {
    const env = { HTTPS_PROXY: "http://proxy:3128", AWS_ENDPOINT_URL_STS: "https://sts.internal", NO_PROXY: "sts.internal" };
    expect(sso(env, "eu-west-1")).toBe("http://proxy:3128");
    expect(sso({ ...env, NO_PROXY: "sts.internal,.amazonaws.com" }, "eu-west-1")).toBeUndefined();
    expect(sso({ ...env, AWS_ENDPOINT_URL_SSO: "http://127.0.0.1:1" }, "eu-west-1")).toBeUndefined();
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
