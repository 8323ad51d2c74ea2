/**
 * Whether the SDK still takes what the account check hands it through its
 * internal hooks (externalDataInterceptor): the credential_process runner in
 * its token record (process-runner.ts) and the one reading of the AWS files in
 * its file record (file-snapshot.ts). Neither is a public interface, and the
 * SDK falls back silently when it stops reading them: its own `exec` runs the
 * line through /bin/sh with the server's environment and working directory,
 * and its reader reads the files again (a changed file could then name a
 * credential_process no check judged). So before every check the SDK resolves
 * a profile of a file that exists only in the record, whose credential_process
 * only the runner answers; anything else refuses the check (fail closed).
 *
 * Should the SDK run the line its own way after all, it is a shell no-op (`:`),
 * and nothing it prints is used.
 *
 * Why before every check rather than once per process: it costs about 40 µs of
 * CPU (0.13 to 0.37 ms of wall time, 5,000 checks in a loop, this repository's
 * build, December 2026), beside an STS round trip and often a credential_process
 * of tens of milliseconds; a memo would save nothing measurable and would need a
 * test-only reset for the fail-closed tests, and anything in the process that
 * later replaced the records would go unseen.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fromIni } from "@aws-sdk/credential-provider-ini";
import { externalDataInterceptor } from "@smithy/core/config";
import { ProbeRefusal } from "./probe-refusal.js";
import { HOOK_CHECK_KEY_ID, runnerCalledDuring } from "./process-runner.js";

const PROFILE = "torii-sdk-hook-check";

/**
 * Refuses the check when the SDK no longer reads the file record or no longer
 * hands a credential_process to the runner.
 *
 * @throws ProbeRefusal SdkHooksMissing.
 */
export async function assertSdkHooksInPlace(): Promise<void> {
  // A directory that is not on disk: only the record can answer for these paths.
  const dir = path.join(path.sep, `torii-sdk-hook-check-${randomUUID()}`);
  const config = path.join(dir, "config");
  const credentials = path.join(dir, "credentials");
  externalDataInterceptor.interceptFile(config, `[profile ${PROFILE}]\ncredential_process = : ${PROFILE}\n`);
  externalDataInterceptor.interceptFile(credentials, "");
  let keyId: string | undefined;
  try {
    const ran = await runnerCalledDuring(async () => {
      keyId = (await fromIni({ profile: PROFILE, filepath: credentials, configFilepath: config, ignoreCache: true })()).accessKeyId;
    });
    if (ran && keyId === HOOK_CHECK_KEY_ID) return;
  } finally {
    const record = externalDataInterceptor.getFileRecord();
    Reflect.deleteProperty(record, config);
    Reflect.deleteProperty(record, credentials);
  }
  throw new ProbeRefusal(
    "SdkHooksMissing",
    "the installed AWS SDK no longer takes Torii's credential_process runner or its one reading of the AWS files " +
      "(externalDataInterceptor, an SDK-internal hook); the check would run credential_process with the server's environment " +
      "or read the files again, so no account is checked: reinstall the SDK versions Torii's package-lock.json pins (npm ci)",
  );
}
