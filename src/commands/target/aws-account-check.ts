/**
 * The account behind an AWS profile, asked of STS before `torii setup` pins it
 * as a new target's `identity.expect` (and by `torii target add aws
 * --check-account` before it writes one). The request goes through the server's own
 * identity check code: the child environment and STS inputs from planAwsCall
 * (aws-call-plan.ts), the request from the server's probe (sdkProbeFor in
 * aws-identity.ts, over sts-probe.ts), which reduces this process's PATH first. The
 * not-yet-written target is described to planAwsCall as it will be written, so
 * the probe reads the same provider `.env`, config files and endpoint that the
 * server's check of the finished target will.
 */
import type { ProviderEntry } from "../../config/registry.js";
import { readLayers } from "../../pipeline/authenticate.js";
import type { ChildPlanDeps } from "../../pipeline/child-plan.js";
import { planAwsCall } from "../../pipeline/identity/aws-call-plan.js";
import { sdkProbeFor } from "../../pipeline/identity/aws-identity.js";
import { operatorChildDeps } from "../shared/child-view.js";
import { pendingTarget } from "./pending-target.js";

/** The account STS names for a profile, or why there is none (no secret in it). */
export type ProfileAccount = { readonly ok: true; readonly account: string } | { readonly ok: false; readonly reason: string };

/**
 * Asks STS GetCallerIdentity which account the credentials of `profile` belong
 * to, as the call of target `alias` (pinned to `region`, if any) would.
 */
export async function stsAccountOfProfile(
  provider: ProviderEntry,
  target: { readonly alias: string; readonly profile: string; readonly region?: string },
  deps?: Partial<ChildPlanDeps>,
): Promise<ProfileAccount> {
  const { profile } = target;
  const { alias, region } = target;
  const pending = pendingTarget(provider, {
    version: "1",
    name: alias,
    ...(region === undefined ? {} : { region }),
    identity: { provider: provider.name, profile, scope: alias },
  });
  const childDeps = { ...operatorChildDeps(), ...deps };
  let plan;
  try {
    plan = planAwsCall(provider, pending, readLayers({ provider, target: pending }, provider), childDeps);
  } catch (error) {
    return { ok: false, reason: `the account check of profile ${profile} could not be prepared: ${(error as Error).message}` };
  }
  // The server's probe: the SDK (loaded only when a profile is checked) runs a credential_process by name
  // with this process's PATH, which it reduces first, as the server does (the shell may sit in the agent's project).
  const result = await sdkProbeFor(childDeps)(plan.sts, new AbortController().signal);
  switch (result.kind) {
    case "identity":
      return { ok: true, account: result.account };
    case "session-invalid":
      return {
        ok: false,
        reason: `STS refused the credentials of AWS profile ${profile} (${result.code}): they are missing, expired or not valid; renew them (for an SSO profile: aws sso login --profile ${profile}), then try again`,
      };
    case "failed":
      return {
        ok: false,
        // A refusal's detail says what to change (files, profiles, lines, never a value: probe-refusal.ts).
        reason:
          result.detail === undefined
            ? `the STS account check of AWS profile ${profile} could not complete (${result.code}); check the profile's region, endpoint and network, then try again`
            : `the STS account check of AWS profile ${profile} could not complete (${result.code}: ${result.detail})`,
      };
    case "canceled":
      return { ok: false, reason: `the STS account check of AWS profile ${profile} was canceled` };
  }
}
