/**
 * Ordinary ~/.aws layouts through the real probe (from review rev-aws): files
 * as `aws configure`, `aws configure set` and hand editing write them. What
 * botocore and the SDK would read differently is refused only in the sections
 * the probe resolves (the target, its source_profile chain, their sso-session
 * and services sections), not anywhere in the file; an `mfa_serial` role is
 * refused up front. The STS stub below answers AssumeRole (key AKIAROLE) and
 * GetCallerIdentity (AKIAONE: 111111111111, AKIAROLE: 222222222222).
 */
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stsInputsOf } from "../../../../src/pipeline/identity/aws-call-plan.js";
import { assertSameIniReading } from "../../../../src/pipeline/identity/ini-dialect.js";
import { probeCallerIdentity, type StsProbeResult } from "../../../../src/pipeline/identity/sts-probe.js";
import { tempDirectory } from "../../../support/temp-dirs.js";
import { herePlace } from "../../../support/process-place.js";

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const form = new URLSearchParams(body);
      const key = /Credential=(\w+)\//u.exec(request.headers.authorization ?? "")?.[1];
      response.writeHead(200, { "content-type": "text/xml" });
      if (form.get("Action") === "AssumeRole") {
        const expiration = new Date(Date.now() + 3_600_000).toISOString();
        response.end(
          `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>AKIAROLE</AccessKeyId><SecretAccessKey>s</SecretAccessKey><SessionToken>t</SessionToken><Expiration>${expiration}</Expiration></Credentials><AssumedRoleUser><Arn>arn:aws:sts::222222222222:assumed-role/R/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>`,
        );
        return;
      }
      const account = key === "AKIAROLE" ? "222222222222" : "111111111111";
      response.end(
        `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:iam::${account}:user/x</Arn><UserId>AIDAX</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${String(typeof address === "object" && address !== null ? address.port : 0)}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** Probes `profile` with these files; HELPER in the config stands for a credential_process answering AKIAONE. */
async function probe(config: string, credentials: string, profile: string): Promise<StsProbeResult> {
  const dir = tempDirectory("torii-ordinary-aws-");
  writeFileSync(path.join(dir, "config"), config.replace(/HELPER/gu, path.join(dir, "helper")));
  writeFileSync(path.join(dir, "credentials"), credentials);
  writeFileSync(path.join(dir, "helper"), `#!/bin/sh\necho '{"Version": 1, "AccessKeyId": "AKIAONE", "SecretAccessKey": "x"}'\n`, { mode: 0o755 });
  const env = { HOME: dir, AWS_CONFIG_FILE: path.join(dir, "config"), AWS_SHARED_CREDENTIALS_FILE: path.join(dir, "credentials"), AWS_ENDPOINT_URL_STS: url };
  return probeCallerIdentity(stsInputsOf(env, profile, undefined, herePlace()), new AbortController().signal);
}

const KEYS = "aws_access_key_id = AKIAONE\naws_secret_access_key = s3cr3t\n";
const ONE = { kind: "identity", account: "111111111111", cacheable: true };
const refusedAt = (where: string) => ({ kind: "failed", code: "IniDialectNotSupported", detail: expect.stringContaining(where) as unknown });

describe("ordinary layouts are not refused", () => {
  const cases: [string, string, string, string][] = [
    [
      '`aws configure set aws_session_token "" --profile dev`, probing default',
      "[default]\nregion = us-east-1\noutput = json\n",
      `[default]\n${KEYS}[dev]\naws_access_key_id = AKIAX\naws_secret_access_key = y\naws_session_token = \n`,
      "default",
    ],
    ["cli_pager= (turns the pager off)", "[default]\nregion = us-east-1\ncli_pager=\n", `[default]\n${KEYS}`, "default"],
    ["an empty output in the target profile", "[default]\nregion = us-east-1\noutput =\n", `[default]\n${KEYS}`, "default"],
    ["an empty aws_session_token in the target (the signer skips it)", "[default]\nregion = us-east-1\n", `[default]\n${KEYS}aws_session_token =\n`, "default"],
    [
      "an s3 nested block and an empty cli_pager",
      "[default]\nregion = us-east-1\ns3 =\n  max_concurrent_requests = 20\n  multipart_threshold = 64MB\ncli_pager =\n",
      `[default]\n${KEYS}`,
      "default",
    ],
    ["an unrelated profile with an empty region", "[default]\nregion = us-east-1\n[profile other]\nregion =\n", `[default]\n${KEYS}`, "default"],
    [
      "an empty aws_session_token in an unrelated profile (saml2aws)",
      "[default]\nregion = us-east-1\n",
      `[default]\n${KEYS}[saml]\naws_access_key_id = AKIAX\naws_secret_access_key = y\naws_session_token =\n`,
      "default",
    ],
    [
      "an uppercase key in an unrelated profile",
      "[default]\nregion = us-east-1\n",
      `[default]\n${KEYS}[other]\nAWS_ACCESS_KEY_ID = AKIAX\nAWS_SECRET_ACCESS_KEY = y\n`,
      "default",
    ],
    [
      "`:`, an inline comment and a continuation in an unrelated profile",
      "[default]\nregion = us-east-1\n[profile other]\nregion: x\noutput = json # c\ncli_pager = less\n  -R\n",
      `[default]\n${KEYS}`,
      "default",
    ],
    [
      "an inline comment in a services section nobody names",
      "[default]\nregion = us-east-1\n[services s]\nsts =\n  endpoint_url = https://e # c\n",
      `[default]\n${KEYS}`,
      "default",
    ],
  ];
  for (const [name, config, credentials, profile] of cases) {
    test(name, async () => {
      await expect(probe(config, credentials, profile)).resolves.toMatchObject(ONE);
    });
  }

  test("role_arn + source_profile over an empty output elsewhere: the role's account, cacheable", async () => {
    const config =
      "[default]\nregion = us-east-1\n[profile admin]\nrole_arn = arn:aws:iam::222222222222:role/R\nsource_profile = default\nregion = us-east-1\n[profile other]\noutput =\n";
    await expect(probe(config, `[default]\n${KEYS}`, "admin")).resolves.toMatchObject({ kind: "identity", account: "222222222222", cacheable: true });
  });

  test("role over a credential_process source, an empty key elsewhere: cacheable (the role ARN fixes the account)", async () => {
    const config =
      "[profile src]\nregion = us-east-1\ncredential_process = HELPER\n[profile admin]\nrole_arn = arn:aws:iam::222222222222:role/R\nsource_profile = src\nregion = us-east-1\n[profile other]\nregion =\n";
    await expect(probe(config, "", "admin")).resolves.toMatchObject({ kind: "identity", account: "222222222222", cacheable: true });
  });

  test("an aws configure sso layout reads alike", () => {
    const config =
      "[profile my-dev]\nsso_session = my-sso\nsso_account_id = 123456789011\nsso_role_name = readOnly\nregion = us-west-2\noutput = json\n\n" +
      "[sso-session my-sso]\nsso_region = us-east-1\nsso_start_url = https://my-sso-portal.awsapps.com/start\nsso_registration_scopes = sso:account:access\n[profile other]\nsso_region =\n";
    expect(() => {
      assertSameIniReading(config, "config", (section) => section === "profile my-dev" || section === "sso-session my-sso");
    }).not.toThrow();
  });
});

describe("what the resolved sections hold is still judged", () => {
  test("an uppercase key: let through in an unrelated profile, refused in the target (botocore lower-cases it)", async () => {
    const credentials = `[default]\n${KEYS}[other]\nAWS_SESSION_TOKEN = x\n[dev]\nAWS_ACCESS_KEY_ID = AKIAONE\nAWS_SECRET_ACCESS_KEY = s3cr3t\n`;
    await expect(probe("[default]\nregion = us-east-1\n", credentials, "default")).resolves.toMatchObject(ONE);
    await expect(probe("[default]\nregion = us-east-1\n", credentials, "dev")).resolves.toMatchObject(refusedAt("credentials file, section [dev], line 7"));
  });

  test("an empty region: let through in an unrelated profile, refused in the role's source profile", async () => {
    const config = "[profile src]\nregion =\n[profile admin]\nrole_arn = arn:aws:iam::222222222222:role/R\nsource_profile = src\nregion = us-east-1\n";
    await expect(probe(config, `[src]\n${KEYS}[dev]\n${KEYS}`, "dev")).resolves.toMatchObject(ONE);
    await expect(probe(config, `[src]\n${KEYS}`, "admin")).resolves.toMatchObject(refusedAt("config file, section [profile src], line 2"));
  });

  test("an empty aws_security_token (botocore takes it before aws_session_token): refused in the target only", async () => {
    const credentials = `[default]\n${KEYS}[dev]\n${KEYS}aws_security_token =\n`;
    await expect(probe("[default]\nregion = us-east-1\n", credentials, "default")).resolves.toMatchObject(ONE);
    await expect(probe("[default]\nregion = us-east-1\n", credentials, "dev")).resolves.toMatchObject(refusedAt("credentials file, section [dev], line 7"));
  });

  test("an inline comment: let through in a services section nobody names, refused in the target's", async () => {
    const config = "[default]\nregion = us-east-1\n[profile dev]\nregion = us-east-1\nservices = s\n[services s]\nsts =\n  endpoint_url = https://e # c\n";
    await expect(probe(config, `[default]\n${KEYS}[dev]\n${KEYS}`, "default")).resolves.toMatchObject(ONE);
    await expect(probe(config, `[default]\n${KEYS}[dev]\n${KEYS}`, "dev")).resolves.toMatchObject(refusedAt("config file, section [services s], line 8"));
  });

  test("a continuation line: let through in an unrelated profile, refused file-wide when it is a section header", async () => {
    await expect(probe("[default]\nregion = us-east-1\n[profile other]\noutput = json\n  text\n", `[default]\n${KEYS}`, "default")).resolves.toMatchObject(ONE);
    // configparser: part of output's value, so botocore has no [profile dev] in the config; the SDK: a header.
    const config = "[default]\nregion = us-east-1\n[profile other]\noutput = json\n  [profile dev]\nregion = eu-west-1\n";
    await expect(probe(config, `[default]\n${KEYS}[dev]\n${KEYS}`, "default")).resolves.toMatchObject(
      refusedAt("config file, section [profile other], line 5"),
    );
  });
});

describe("a role with mfa_serial", () => {
  test("is refused up front, saying what to use instead (the SDK has no MFA code to give)", async () => {
    const config =
      "[default]\nregion = us-east-1\n[profile admin]\nrole_arn = arn:aws:iam::111111111111:role/Admin\nsource_profile = default\nmfa_serial = arn:aws:iam::111111111111:mfa/me\nregion = us-east-1\n";
    await expect(probe(config, `[default]\n${KEYS}`, "admin")).resolves.toMatchObject({
      kind: "failed",
      code: "MfaProfileNotSupported",
      detail: expect.stringMatching(/AWS profile admin .*mfa_serial.*SSO profile.*credential_process/u) as unknown,
    });
  });
});
