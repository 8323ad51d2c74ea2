/**
 * The account behind an AWS profile, asked of STS before `torii setup` pins it
 * as a new target's `identity.expect`. The request goes through the server's own
 * identity check code: the child environment and STS inputs from planAwsCall
 * (aws-call-plan.ts), the request from probeCallerIdentity (sts-probe.ts). The
 * not-yet-written target is described to planAwsCall as it will be written, so
 * the probe reads the same provider `.env`, config files and endpoint that the
 * server's check of the finished target will.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ProviderEntry, TargetEntry } from "../../config/registry.js";
import { targetConfigPath, targetDir } from "../../config/paths.js";
import { readLayers } from "../../pipeline/authenticate.js";
import type { ChildPlanDeps } from "../../pipeline/child-plan.js";
import { planAwsCall } from "../../pipeline/identity/aws-call-plan.js";
import { aliasFor } from "./setup-detect.js";
import { runTargetAdd } from "../target/target-add.js";

/** The account STS names for a profile, or why there is none (no secret in it). */
export type ProfileAccount = { readonly ok: true; readonly account: string } | { readonly ok: false; readonly reason: string };

/** The target `torii setup` is about to create, as planAwsCall needs it (it has no `.env` of its own yet). */
function pendingTarget(provider: ProviderEntry, alias: string, profile: string): TargetEntry {
  const dir = targetDir(provider.dir, alias);
  return {
    name: alias,
    dir,
    file: targetConfigPath(dir),
    config: { version: "1", name: alias, identity: { provider: provider.name, profile, scope: alias } },
    rulesPath: path.join(dir, "rules.yaml"),
    hasOwnRules: false,
    // Not written yet; planAwsCall does not read it.
    fileIdentity: { ino: 0, birthtimeMs: 0 },
  };
}

/** Asks STS GetCallerIdentity which account the credentials of `profile` belong to, as the call of target `alias` would. */
export async function stsAccountOfProfile(provider: ProviderEntry, alias: string, profile: string, deps?: Partial<ChildPlanDeps>): Promise<ProfileAccount> {
  const target = pendingTarget(provider, alias, profile);
  let plan;
  try {
    plan = planAwsCall(provider, target, readLayers({ provider, target }, provider), {
      serverEnv: process.env,
      platform: process.platform,
      selfDir: path.dirname(fileURLToPath(import.meta.url)),
      cwd: process.cwd(),
      ...deps,
    });
  } catch (error) {
    return { ok: false, reason: `the account check of profile ${profile} could not be prepared: ${(error as Error).message}` };
  }
  // Loaded here, not at the top: the SDK is only paid for when a profile is checked.
  const { probeCallerIdentity } = await import("../../pipeline/identity/sts-probe.js");
  const result = await probeCallerIdentity(plan.sts, new AbortController().signal);
  switch (result.kind) {
    case "identity":
      return { ok: true, account: result.account };
    case "session-invalid":
      return {
        ok: false,
        reason: `STS refused the credentials of AWS profile ${profile} (${result.code}): they are missing, expired or not valid; renew them (for an SSO profile: aws sso login --profile ${profile}), then rerun torii setup`,
      };
    case "failed":
      return {
        ok: false,
        reason: `the STS account check of AWS profile ${profile} could not complete (${result.code}); check the profile's region, endpoint and network, then rerun torii setup`,
      };
    case "canceled":
      return { ok: false, reason: `the STS account check of AWS profile ${profile} was canceled` };
  }
}

/** How the wizard talks to the operator (the prompts library in setup.ts, scripted in tests). */
export interface AccountDialog {
  readonly say: (...lines: string[]) => void;
  readonly confirm: (question: { message: string; default: boolean }) => Promise<boolean>;
}

/**
 * Creates the aws_profile target of `profile` pinned to the account STS names,
 * once the operator confirms that account; an STS failure or a rejected account
 * creates no target and says why and what to do. Returns whether it created one.
 */
export async function addAwsTarget(provider: ProviderEntry, profile: string, dialog: AccountDialog, deps?: Partial<ChildPlanDeps>): Promise<boolean> {
  const alias = aliasFor(profile);
  dialog.say(`asking STS which AWS account profile ${profile} belongs to...`);
  const answer = await stsAccountOfProfile(provider, alias, profile, deps);
  if (!answer.ok) {
    dialog.say(`no target for profile ${profile}: ${answer.reason}`);
    return false;
  }
  if (!(await dialog.confirm({ message: `Profile ${profile} is AWS account ${answer.account}. Pin this account to target ${alias}?`, default: true }))) {
    dialog.say(
      `no target for profile ${profile}: account ${answer.account} was not confirmed (fix the profile's credentials and rerun torii setup, or name the account yourself: torii target add aws ${alias} --profile ${profile} --account-id <12 digits>)`,
    );
    return false;
  }
  await runTargetAdd("aws", alias, { profile, accountId: answer.account });
  return true;
}
