/**
 * `torii setup`'s AWS profile step: the account STS names for a profile
 * (aws-account-check.ts) is shown, and the target is created pinned to it only
 * once the operator confirms it.
 */
import type { ProviderEntry } from "../../config/registry.js";
import type { ChildPlanDeps } from "../../pipeline/child-plan.js";
import { unseenEscapes } from "../../runtime/display-text.js";
import { stsAccountOfProfile } from "../target/aws-account-check.js";
import { runTargetAdd } from "../target/target-add.js";
import { aliasFor } from "./setup-detect.js";

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
  // The name comes from ~/.aws/config or credentials: its escapes and controls are written out, never sent to the terminal.
  const shown = unseenEscapes(profile);
  dialog.say(`asking STS which AWS account profile ${shown} belongs to...`);
  const answer = await stsAccountOfProfile(provider, { alias, profile }, deps);
  if (!answer.ok) {
    dialog.say(`no target for profile ${shown}: ${unseenEscapes(answer.reason)}`);
    return false;
  }
  if (!(await dialog.confirm({ message: `Profile ${shown} is AWS account ${answer.account}. Pin this account to target ${alias}?`, default: true }))) {
    dialog.say(
      `no target for profile ${shown}: account ${answer.account} was not confirmed (fix the profile's credentials and rerun torii setup, or name the account yourself: torii target add aws ${alias} --profile ${shown} --account-id <12 digits>)`,
    );
    return false;
  }
  await runTargetAdd("aws", alias, { profile, accountId: answer.account });
  return true;
}
