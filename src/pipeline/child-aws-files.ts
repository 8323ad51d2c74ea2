/**
 * The AWS shared config and credentials files a child is pointed at, and the
 * trust rule they are held to. Either file can name a `credential_process`
 * that the AWS CLI (and an SDK, and `aws eks get-token` in a kubeconfig's exec
 * plugin) runs, so whoever can write one runs code as the operator: a file
 * that `AWS_CONFIG_FILE` or `AWS_SHARED_CREDENTIALS_FILE` in an operator's
 * `.env` names passes the kubeconfig's rule (pipeline/child-kubeconfig.ts).
 * The server's own `AWS_*` never reaches a child (runtime/child-env.ts), and
 * the defaults under `~/.aws` are the operator's own files, not checked.
 */
import type { TrustPolicy } from "../config/file-trust.js";
import { checkConfiguredFiles } from "./child-kubeconfig.js";
import { awsFilesOf } from "./identity/aws-call-plan.js";

/** The variables that point a child at AWS files, with the field of awsFilesOf each one sets. */
export const AWS_FILE_VARIABLES = [
  ["AWS_CONFIG_FILE", "configFile"],
  ["AWS_SHARED_CREDENTIALS_FILE", "credentialsFile"],
] as const;

/**
 * Refuses an AWS file the child environment `env` names that is untrusted,
 * unreadable or missing (the CLI would skip a missing one; whoever creates it
 * later would choose the program it runs).
 *
 * @throws ConfigError naming the file and, for a trust problem, the command that fixes it.
 */
export function checkConfiguredAwsFiles(env: Readonly<Record<string, string>>, policy: TrustPolicy): void {
  const files = awsFilesOf(env);
  for (const [variable, field] of AWS_FILE_VARIABLES) {
    if (env[variable] !== undefined) checkConfiguredFiles([files[field]], policy, { variable, kind: "shared AWS config" });
  }
}
