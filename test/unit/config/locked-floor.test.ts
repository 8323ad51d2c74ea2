import { describe, expect, it } from "vitest";
import { effectiveLockedOptions, LOCKED_OPTION_FLOOR } from "../../../src/config/locked-floor.js";
import type { ProviderConfig } from "../../../src/config/provider-schema.js";

function provider(targeting?: ProviderConfig["targeting"]): ProviderConfig {
  const base: ProviderConfig = { version: "1", name: "p", tool: "p", command: "p", description: "", expose: true, args_prefix: [] };
  return targeting === undefined ? base : { ...base, targeting };
}

describe("LOCKED_OPTION_FLOOR", () => {
  it("locks every kubectl option that switches cluster, identity or trust, or writes a local file", () => {
    expect([...LOCKED_OPTION_FLOOR.kubectl_context].sort()).toEqual(
      [
        "--context",
        "--kubeconfig",
        "--cluster",
        "--user",
        "--token",
        "--server",
        "--username",
        "--password",
        "--client-key",
        "--client-certificate",
        "--certificate-authority",
        "--insecure-skip-tls-verify",
        "--tls-server-name",
        "--as",
        "--as-group",
        "--as-uid",
        "--as-user-extra",
        "--cache-dir",
        "--profile",
        "--profile-output",
        "--log-file",
        "--log-dir",
      ].sort(),
    );
  });

  it("locks the AWS profile, region, endpoint and trust options", () => {
    expect([...LOCKED_OPTION_FLOOR.aws_profile].sort()).toEqual(
      ["--profile", "--region", "--endpoint-url", "--no-sign-request", "--ca-bundle", "--no-verify-ssl"].sort(),
    );
  });

  it("locks nothing for credentials mode and cannot be changed at run time", () => {
    expect(LOCKED_OPTION_FLOOR.credentials).toEqual([]);
    expect(Object.isFrozen(LOCKED_OPTION_FLOOR)).toBe(true);
    expect(Object.isFrozen(LOCKED_OPTION_FLOOR.aws_profile)).toBe(true);
  });
});

describe("effectiveLockedOptions", () => {
  it("is the floor plus locked_options, deduplicated and sorted", () => {
    const options = effectiveLockedOptions(provider({ mode: "aws_profile", locked_options: ["--debug-endpoint", "--profile", "--debug-endpoint"] }));
    expect(options).toEqual(["--ca-bundle", "--debug-endpoint", "--endpoint-url", "--no-sign-request", "--no-verify-ssl", "--profile", "--region"]);
  });

  it("is only locked_options for credentials mode or no mode", () => {
    expect(effectiveLockedOptions(provider({ mode: "credentials", locked_options: ["--token", "--config"] }))).toEqual(["--config", "--token"]);
    expect(effectiveLockedOptions(provider({ locked_options: ["--x"] }))).toEqual(["--x"]);
    expect(effectiveLockedOptions(provider())).toEqual([]);
  });

  it("keeps the whole floor for kubectl_context", () => {
    expect(effectiveLockedOptions(provider({ mode: "kubectl_context", locked_options: [] }))).toHaveLength(22);
  });
});
