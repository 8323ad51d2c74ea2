/**
 * Broker-owned options per target mode. The broker injects the target's
 * context, profile or region itself, so any agent spelling of an option that
 * would switch cluster, identity, endpoint or trust is refused. A provider's
 * `targeting.locked_options` can add to this floor, never remove from it.
 */
import type { ProviderConfig, TargetMode } from "./provider-schema.js";

/** The options every provider of a mode locks, whatever its `locked_options` say. */
export const LOCKED_OPTION_FLOOR: Readonly<Record<TargetMode, readonly string[]>> = Object.freeze({
  kubectl_context: Object.freeze([
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
  ]),
  aws_profile: Object.freeze(["--profile", "--region", "--endpoint-url", "--no-sign-request", "--ca-bundle", "--no-verify-ssl"]),
  // credentials mode injects nothing; the provider's locked_options must name what redirects credentials.
  credentials: Object.freeze([]),
});

/**
 * The options the broker owns for this provider: its mode's floor plus its
 * `targeting.locked_options`, deduplicated and sorted.
 */
export function effectiveLockedOptions(provider: ProviderConfig): string[] {
  const mode = provider.targeting?.mode;
  const floor = mode === undefined ? [] : LOCKED_OPTION_FLOOR[mode];
  return [...new Set([...floor, ...(provider.targeting?.locked_options ?? [])])].sort();
}
