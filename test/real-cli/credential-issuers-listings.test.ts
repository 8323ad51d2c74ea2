/**
 * The credential-issuer listings (scripts/providers/*-credential-issuers.txt, whose rows
 * test/unit/policy/credential-issuers.test.ts checks are refused) agree with the installed
 * CLIs: the generators, run against the installed awscli and Google Cloud SDK, print what
 * is committed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { testPython } from "../support/test-python.js";

const at = (file: string): string => fileURLToPath(new URL(`../../${file}`, import.meta.url));

describe("the listings agree with the installed CLIs", () => {
  // .ci/run exports TORII_TEST_PYTHON: a python3 that can import awscli. The whole walk
  // (`aws_credential_issuers.py --check`) takes 25 s of CPU; these services are the brief's.
  it("aws: the candidates of iam, sso, sso-oidc, ecr, redshift, lightsail, ec2 and mwaa are the listing's, each with its verdict", () => {
    const services = ["iam", "sso", "sso-oidc", "ecr", "redshift", "lightsail", "ec2", "mwaa"];
    const script = at("scripts/providers/aws_credential_issuers.py");
    const printed = execFileSync(testPython(), [script, "--services", ...services], { encoding: "utf8", stdio: "pipe" });
    const listed = readFileSync(at("scripts/providers/aws-credential-issuers.txt"), "utf8")
      .split("\n")
      .filter((line) => services.includes(line.split(" ")[0]!) && !line.includes("(custom)"));
    expect(printed.trim().split("\n")).toEqual(listed);
    expect(listed).toContain("iam create-access-key AccessKey.SecretAccessKey  # issues");
    expect(listed).toContain("sso get-role-credentials roleCredentials.sessionToken  # issues");
    // A member marked sensitive whose name is no credential word (red team 11 F4).
    expect(listed).toContain("ec2 create-key-pair KeyMaterial  # issues");
    expect(listed).toContain("mwaa create-cli-token CliToken  # issues");
  }, 90_000);

  it.skipIf(!existsSync("/usr/lib/google-cloud-sdk/data/cli/gcloud_completions.py"))(
    "gcloud: the SDK's command tree has no unreviewed candidate and the files are fresh",
    () => {
      // Exits non-zero naming any candidate with no review entry, or when a file differs.
      execFileSync(testPython(), [at("scripts/providers/gcloud_credential_issuers.py"), "--check"], { stdio: "pipe" });
    },
    90_000,
  );
});
