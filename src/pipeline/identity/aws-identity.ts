/**
 * The account check of an `aws_profile` target: GetCallerIdentity through the
 * AWS SDK (sts-probe.ts, loaded on first use) with the inputs the real call's
 * own environment yields (aws-call-plan.ts). `Account` must equal the target's
 * `identity.expect`:
 *
 * - equal: allowed, and remembered per (scope, binding, credential-source
 *   fingerprint) for `auth.identity.cache_ttl_seconds`;
 * - different: `identity-mismatch`, the CLI never runs;
 * - missing, expired or refused credentials: `session-invalid`, with the
 *   operator's next step and never a secret;
 * - anything else (network, timeout, unusable configuration): an error, and
 *   the CLI does not run either.
 *
 * Runs only after the allow (authenticate.ts), inside the scope lock.
 */
import type { ProviderEntry, TargetEntry } from "../../config/registry.js";
import { restrictOwnPath } from "../../config/search-trust.js";
import { leaseBindingOf } from "../../state/lease-status.js";
import { recordBeforeStart, type CallAudit } from "../call-audit.js";
import type { ChildPlanDeps, CredentialLayers } from "../child-plan.js";
import { planAwsCall, type StsProbeInputs } from "./aws-call-plan.js";
import { credentialSourceFingerprint } from "./credential-fingerprint.js";
import { IdentityCache } from "./identity-cache.js";
import type { StsProbeResult } from "./sts-probe.js";

/** How a check ended, in the terms of the auth lifecycle. */
export type AwsIdentityOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: "deny"; readonly source: "session-invalid" | "identity-mismatch"; readonly reason: string }
  | { readonly ok: false; readonly kind: "error"; readonly message: string };

export interface AwsIdentityRequest {
  readonly provider: ProviderEntry;
  readonly target: TargetEntry;
  readonly layers: CredentialLayers;
  /** The identity provider's credential scope (the lock's key). */
  readonly scope: string;
  readonly audit: CallAudit;
  readonly signal: AbortSignal;
}

export interface AwsIdentityDeps extends ChildPlanDeps {
  /** Successful checks; a server shares one across its calls. */
  readonly identityCache?: IdentityCache;
  /** The STS request; the SDK-backed probe unless a test replaces it. */
  readonly stsProbe?: (inputs: StsProbeInputs, signal: AbortSignal) => Promise<StsProbeResult>;
}

const serverCache = new IdentityCache();

/**
 * The SDK-backed probe for a process whose working directory, code directory
 * and trusted PATH directories are `deps`'. A profile's `credential_process`
 * runs through process-runner.ts with the child's environment and PATH, never
 * the SDK's own shell (sdk-hook-check.ts refuses the check if the SDK stops
 * handing it over). This process's own PATH is still reduced here, before
 * every probe, as defence in depth: were the SDK ever to run a line its own
 * way, an entry that has since become writable by others, or a link into the
 * project, would not be searched. Reducing only ever drops entries.
 */
export function sdkProbeFor(deps: ChildPlanDeps): (inputs: StsProbeInputs, signal: AbortSignal) => Promise<StsProbeResult> {
  return async (inputs, signal) => {
    // Loaded on first use: servers without aws_profile targets never pay the SDK's start-up.
    const { probeCallerIdentity } = await import("./sts-probe.js");
    restrictOwnPath(process.env, { cwd: deps.cwd, selfDir: deps.selfDir, trustedDirectories: deps.pathTrustedDirectories }, deps.platform);
    return probeCallerIdentity(inputs, signal);
  };
}

function sessionStep(profile: string): string {
  return `ask the operator to renew the credentials of AWS profile ${profile} (for an SSO profile: aws sso login --profile ${profile}), then retry`;
}

/** Confirms the account of an aws_profile target before its call runs. */
export async function checkAwsIdentity(request: AwsIdentityRequest, deps: AwsIdentityDeps): Promise<AwsIdentityOutcome> {
  const { target, audit } = request;
  const expected = target.config.identity.expect;
  if (expected === undefined) return { ok: true };
  let inputs: StsProbeInputs;
  try {
    inputs = planAwsCall(request.provider, target, request.layers, deps).sts;
  } catch (error) {
    return { ok: false, kind: "error", message: `the account check of target ${target.name} could not be prepared: ${(error as Error).message}` };
  }
  const cache = deps.identityCache ?? serverCache;
  const key = IdentityCache.keyOf(request.scope, leaseBindingOf(request.provider.name, target), credentialSourceFingerprint(inputs));
  if (cache.has(key)) {
    audit.record({ event: "identity-ok", detail: "cached" });
    return { ok: true };
  }
  // No request leaves the machine before the records that allowed it are in the file (it throws without them).
  await recordBeforeStart(audit);
  const result = await (deps.stsProbe ?? sdkProbeFor(deps))(inputs, request.signal);
  switch (result.kind) {
    case "identity":
      if (result.account !== expected) {
        cache.forget(key);
        audit.record({ event: "identity-mismatch", detail: "sts" });
        return {
          ok: false,
          kind: "deny",
          source: "identity-mismatch",
          reason: `the credentials of AWS profile ${inputs.profile} belong to another account than the one the operator pinned for target ${target.name}; the call was not run`,
        };
      }
      // A credential_process may answer for another account with nothing the key covers changed: never
      // remembered, since each run of the CLI runs it again (sts-probe.ts, `cacheable`).
      if (result.cacheable) cache.remember(key, request.provider.config.auth?.identity?.cache_ttl_seconds ?? 300, result.expiresAt);
      else cache.forget(key);
      audit.record({ event: "identity-ok", detail: "sts" });
      return { ok: true };
    case "session-invalid":
      cache.forget(key);
      audit.record({ event: "session-invalid", detail: `sts ${result.code}` });
      return {
        ok: false,
        kind: "deny",
        source: "session-invalid",
        reason: `the credentials of AWS profile ${inputs.profile} are missing, expired or refused (${result.code}); ${sessionStep(inputs.profile)}`,
      };
    case "failed":
      cache.forget(key);
      audit.record({ event: "identity-check-failed", detail: `sts ${result.code}` });
      return {
        ok: false,
        kind: "error",
        // A refusal's detail names files, profiles and lines, never a value (probe-refusal.ts).
        message: `the STS account check of target ${target.name} could not complete (${result.code}${result.detail === undefined ? "" : `: ${result.detail}`}); the call was not run`,
      };
    case "canceled":
      audit.record({ event: "identity-check-failed", detail: "sts canceled" });
      return { ok: false, kind: "error", message: "the call was canceled during the STS account check" };
  }
}
