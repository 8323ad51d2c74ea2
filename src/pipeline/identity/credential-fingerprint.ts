/**
 * A digest of everything the AWS CLI's credentials come from: the probe's
 * inputs (profile, files, region, steering variables), the child's whole
 * environment and working directory (what a `credential_process` runs with:
 * a helper may answer by any variable, aws-vault by `AWS_VAULT_BACKEND`, a
 * `.env` token), and the identity of the config and credentials files and of
 * the SSO and CLI credential caches (device, inode, size, modification and
 * change times). Editing a file, logging in again or switching any variable of
 * the child's environment changes it. File contents are never read here and no
 * value is stored: only the digest.
 */
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import path from "node:path";
import type { StsProbeInputs } from "./aws-call-plan.js";

function statOf(file: string): string {
  try {
    const stat = statSync(file, { bigint: true });
    return [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].join(":");
  } catch (error) {
    return `absent:${error instanceof Error && "code" in error ? String(error.code) : "unknown"}`;
  }
}

function sortedEntries(env: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The fingerprint of the credential sources of `inputs` (hex SHA-256). */
export function credentialSourceFingerprint(inputs: StsProbeInputs): string {
  const sources = [inputs.configFile, inputs.credentialsFile, path.join(inputs.awsDir, "sso", "cache"), path.join(inputs.awsDir, "cli", "cache")];
  const canonical = JSON.stringify({
    profile: inputs.profile,
    pinnedRegion: inputs.pinnedRegion ?? null,
    env: sortedEntries(inputs.env),
    processEnv: sortedEntries(inputs.processEnv),
    cwd: inputs.place.cwd,
    files: sources.map((file) => [file, statOf(file)]),
  });
  return createHash("sha256").update("torii-aws-credential-sources-v2\0").update(canonical).digest("hex");
}
