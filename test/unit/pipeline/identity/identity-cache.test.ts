/**
 * A remembered success holds only for its exact key and only for its time; the
 * credential-source fingerprint changes with every edit of the files or the
 * steering variables the CLI reads.
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { stsInputsOf } from "../../../../src/pipeline/identity/aws-call-plan.js";
import { credentialSourceFingerprint } from "../../../../src/pipeline/identity/credential-fingerprint.js";
import { IdentityCache } from "../../../../src/pipeline/identity/identity-cache.js";
import { tempDirectory } from "../../../support/temp-dirs.js";
import { herePlace } from "../../../support/process-place.js";

describe("IdentityCache", () => {
  test("remembers a success for cache_ttl_seconds, never past the credentials' expiry, and not at all for 0", () => {
    let now = 1_000_000;
    const cache = new IdentityCache(
      () => now,
      () => now,
    );
    const key = IdentityCache.keyOf("aws\0dev", "binding", "fingerprint");
    cache.remember(key, 300);
    expect(cache.has(key)).toBe(true);
    expect(cache.has(IdentityCache.keyOf("aws\0dev", "other-binding", "fingerprint"))).toBe(false);
    now += 300_000;
    expect(cache.has(key)).toBe(false);

    cache.remember(key, 300, new Date(now + 10_000));
    now += 10_000;
    expect(cache.has(key)).toBe(false);

    cache.remember(key, 0);
    expect(cache.has(key)).toBe(false);
    cache.remember(key, 300);
    cache.forget(key);
    expect(cache.has(key)).toBe(false);
  });

  test("a wall clock stepped back after a success does not lengthen it: the TTL runs on the monotonic clock", () => {
    let wall = 1_000_000_000;
    let monotonic = 5_000;
    const cache = new IdentityCache(
      () => wall,
      () => monotonic,
    );
    const key = IdentityCache.keyOf("aws\0dev", "binding", "fingerprint");
    cache.remember(key, 300);
    // NTP corrects a clock that ran an hour ahead, then the TTL's 300 s pass.
    wall -= 3_600_000;
    wall += 300_000;
    monotonic += 300_000;
    expect(cache.has(key)).toBe(false);

    // The credentials' expiry is turned into a remaining time when remembered, and that also runs monotonically.
    cache.remember(key, 300, new Date(wall + 10_000));
    wall -= 3_600_000;
    monotonic += 10_000;
    expect(cache.has(key)).toBe(false);
  });
});

describe("credentialSourceFingerprint", () => {
  const home = tempDirectory("torii-fingerprint-");
  const config = path.join(home, "config");
  const env = { HOME: home, AWS_CONFIG_FILE: config };
  writeFileSync(config, "[profile dev]\nregion = eu-west-1\n");
  const base = credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, herePlace()));

  test("is stable while nothing changes", () => {
    expect(credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, herePlace()))).toBe(base);
  });

  test("changes with the config file, the profile, the region, a steering variable, and a new login's cache", () => {
    writeFileSync(config, "[profile dev]\nregion = eu-west-2\n");
    utimesSync(config, new Date(0), new Date(86_400_000));
    const edited = credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, herePlace()));
    expect(edited).not.toBe(base);
    expect(credentialSourceFingerprint(stsInputsOf(env, "prod", undefined, herePlace()))).not.toBe(edited);
    expect(credentialSourceFingerprint(stsInputsOf(env, "dev", "eu-central-1", herePlace()))).not.toBe(edited);
    expect(credentialSourceFingerprint(stsInputsOf({ ...env, AWS_ENDPOINT_URL_STS: "http://127.0.0.1:1" }, "dev", undefined, herePlace()))).not.toBe(edited);
    // Any variable of the child's environment counts: a credential_process runs with all of them.
    expect(credentialSourceFingerprint(stsInputsOf({ ...env, LANG: "C" }, "dev", undefined, herePlace()))).not.toBe(edited);
    expect(credentialSourceFingerprint(stsInputsOf({ ...env, AWS_VAULT_BACKEND: "file" }, "dev", undefined, herePlace()))).not.toBe(edited);
    // And so does the working directory it runs in.
    const elsewhere = { cwd: path.join(home, "other"), selfDir: home, platform: process.platform };
    expect(credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, elsewhere))).not.toBe(edited);
    mkdirSync(path.join(home, ".aws", "sso", "cache"), { recursive: true });
    const withCacheDir = credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, herePlace()));
    expect(withCacheDir).not.toBe(edited);
    writeFileSync(path.join(home, ".aws", "sso", "cache", "token.json"), "{}");
    const loggedIn = credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, herePlace()));
    expect(loggedIn).not.toBe(withCacheDir);
    writeFileSync(path.join(home, ".aws", "credentials"), "[dev]\n");
    expect(credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, herePlace()))).not.toBe(loggedIn);
  });

  test.each([
    "AWS_ENDPOINT_URL_SSO_OIDC",
    "AWS_ENDPOINT_URL_SIGNIN",
    "REQUESTS_CA_BUNDLE",
    "AWS_LOGIN_CACHE_DIRECTORY",
    "AWS_EC2_METADATA_SERVICE_ENDPOINT",
    "AWS_EC2_METADATA_DISABLED",
  ])("changes with %s too (the CLI reads it for the SSO token refresh, aws login, trust or instance metadata)", (name) => {
    const before = credentialSourceFingerprint(stsInputsOf(env, "dev", undefined, herePlace()));
    expect(stsInputsOf({ ...env, [name]: "x" }, "dev", undefined, herePlace()).env).toHaveProperty(name, "x");
    expect(credentialSourceFingerprint(stsInputsOf({ ...env, [name]: "x" }, "dev", undefined, herePlace()))).not.toBe(before);
  });
});
