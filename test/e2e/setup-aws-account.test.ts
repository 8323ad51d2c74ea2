/**
 * `torii setup`'s AWS profile step (addAwsTarget), in process: the real AWS SDK
 * asks a local STS endpoint (the profile's `endpoint_url` in a scratch AWS
 * config named by the provider's `.env`, as real-aws-sts.test.ts does) which
 * account a profile belongs to; the target is written pinned to that account
 * only once the operator confirms it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { loadRegistry, type ProviderEntry } from "../../src/config/registry.js";
import { addAwsTarget } from "../../src/commands/setup/aws-account.js";
import { makeConfigTree } from "../support/config-tree.js";
import { writeExecutable } from "../support/fake-clis.js";
import { runCli } from "../support/run-cli.js";
import { startStsStub, type StsStub } from "../support/sts-stub.js";
import { tempDirectory } from "../support/temp-dirs.js";

const AWS_PROVIDER = readFileSync(fileURLToPath(new URL("../../providers/aws/provider.yaml", import.meta.url)), "utf8");
const ACCOUNT = "111122223333";
const SECRETS = ["dev-secret-value-0001", "old-secret-value-0002"];

let stub: StsStub;
let hostile: StsStub;
let awsDir: string;

beforeAll(async () => {
  stub = await startStsStub({ identities: { AKIADEVSTUB: { account: ACCOUNT } }, expired: ["AKIAOLDSTUB"] });
  hostile = await startStsStub({ identities: {} });
  awsDir = tempDirectory("torii-setup-aws-");
  const profile = (name: string): string => `[profile ${name}]\nregion = eu-west-1\nendpoint_url = ${stub.url}\n`;
  // `mixed` names two credential sources (keys and credential_process): the account check refuses it.
  writeFileSync(
    path.join(awsDir, "config"),
    `${profile("dev")}${profile("old")}${profile("mixed")}credential_process = /bin/false\n${profile("helper")}credential_process = torii-cred-helper\n`,
  );
  writeFileSync(
    path.join(awsDir, "credentials"),
    `[dev]\naws_access_key_id = AKIADEVSTUB\naws_secret_access_key = ${SECRETS[0]}\n[old]\naws_access_key_id = AKIAOLDSTUB\naws_secret_access_key = ${SECRETS[1]}\n[mixed]\naws_access_key_id = AKIADEVSTUB\naws_secret_access_key = ${SECRETS[0]}\n`,
    { mode: 0o600 },
  );
});

afterAll(async () => {
  await stub.close();
  await hostile.close();
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

/** A fresh configuration with the aws provider whose `.env` names the scratch AWS files. */
function awsTree(): string {
  return makeConfigTree({
    "providers/aws/provider.yaml": AWS_PROVIDER,
    "providers/aws/rules.yaml": 'version: "1"\naccept: []\ndeny: []\n',
    "providers/aws/.env": `AWS_CONFIG_FILE=${path.join(awsDir, "config")}\nAWS_SHARED_CREDENTIALS_FILE=${path.join(awsDir, "credentials")}\n`,
  });
}

/** awsTree() with TORII_CONFIG_DIR pointing at it, for the in-process step. */
function freshAws(): { root: string; provider: ProviderEntry } {
  const root = awsTree();
  vi.stubEnv("TORII_CONFIG_DIR", root);
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  const provider = loadRegistry(root).providers.get("aws");
  if (provider === undefined) throw new Error("the aws provider did not load");
  return { root, provider };
}

/** Runs the step with a scripted operator; returns what it said, what it asked and whether it made a target. */
async function step(provider: ProviderEntry, profile: string, confirmed: boolean, cwd?: string) {
  const said: string[] = [];
  const asked: string[] = [];
  // The server's own environment points elsewhere: the check must use the call's environment (the provider's .env).
  const serverEnv = { ...process.env, AWS_ENDPOINT_URL_STS: hostile.url, AWS_ENDPOINT_URL: hostile.url, AWS_PROFILE: "hostile" };
  const deps = cwd === undefined ? { serverEnv } : { serverEnv, cwd };
  const created = await addAwsTarget(
    provider,
    profile,
    {
      say: (...lines) => said.push(...lines),
      confirm: ({ message }) => {
        asked.push(message);
        return Promise.resolve(confirmed);
      },
    },
    deps,
  );
  return { said: said.join("\n"), asked: asked.join("\n"), created };
}

const targetFile = (root: string, alias: string): string => path.join(root, "providers", "aws", "targets", alias, "target.yaml");

describe("torii setup: the account of an AWS profile comes from STS", () => {
  test("the account STS names is shown and, once confirmed, pinned as identity.expect", async () => {
    const { root, provider } = freshAws();
    const before = stub.requests.length;
    const result = await step(provider, "dev", true);
    expect(result.asked).toContain(`Profile dev is AWS account ${ACCOUNT}`);
    expect(result.created).toBe(true);
    const written = loadRegistry(root).providers.get("aws")?.targets.get("dev");
    expect(written?.config.identity).toMatchObject({ profile: "dev", expect: ACCOUNT });
    expect(stub.requests.slice(before).some((request) => request.userAgent.startsWith("aws-sdk-js/"))).toBe(true);
    expect(hostile.requests).toHaveLength(0);
  });

  test("a profile name's escapes are written out in every line and question, never sent to the terminal", async () => {
    const { provider } = freshAws();
    // A name from ~/.aws/config with an OSC title sequence, a clear-screen CSI and a right-to-left override.
    const result = await step(provider, "dev\u001b]0;PWNED\u0007\u001b[2J\u202e", false);
    expect(result.said).toContain("profile dev\\u{1b}]0;PWNED\\u{7}\\u{1b}[2J\\u{202e}");
    // eslint-disable-next-line no-control-regex -- the control characters are what must not reach the terminal
    expect(`${result.said}\n${result.asked}`).not.toMatch(/[\u001b\u0007\u202e]/u);
    expect(result.created).toBe(false);
  });

  test("an account the operator rejects creates no target and says what to run instead", async () => {
    const { root, provider } = freshAws();
    const result = await step(provider, "dev", false);
    expect(result.created).toBe(false);
    expect(existsSync(targetFile(root, "dev"))).toBe(false);
    expect(result.said).toContain(`account ${ACCOUNT} was not confirmed`);
    expect(result.said).toContain("torii target add aws dev --profile dev --account-id <12 digits>");
  });

  test("credentials STS refuses (403) create no target and name the login step, never a secret", async () => {
    const { root, provider } = freshAws();
    const result = await step(provider, "old", true);
    expect(result.created).toBe(false);
    expect(result.asked).toBe("");
    expect(existsSync(targetFile(root, "old"))).toBe(false);
    expect(result.said).toContain("no target for profile old");
    expect(result.said).toContain("ExpiredToken");
    expect(result.said).toContain("aws sso login --profile old");
    for (const secret of [...SECRETS, "AKIAOLDSTUB"]) expect(result.said).not.toContain(secret);
  });
});

describe("torii setup: the shell's PATH is reduced before the SDK runs a credential_process", () => {
  test("a credential_process helper planted in the project the shell sits in, on the shell's PATH, never runs", async () => {
    const { root, provider } = freshAws();
    const project = tempDirectory("torii-setup-project-");
    const marker = path.join(awsDir, "planted-helper-ran");
    mkdirSync(path.join(project, ".venv", "bin"), { recursive: true });
    writeExecutable(
      path.join(project, ".venv", "bin", "torii-cred-helper"),
      `#!/bin/sh\ntouch '${marker}'\necho '{"Version": 1, "AccessKeyId": "AKIADEVSTUB", "SecretAccessKey": "x"}'\n`,
    );
    // As venv activation leaves it: the shell's PATH starts in the project, and the operator runs setup there.
    vi.stubEnv("PATH", `${path.join(project, ".venv", "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`);
    const result = await step(provider, "helper", true, project);
    // The check got as far as the SDK (the aws CLI was found), which found no helper on the reduced PATH.
    expect(result.said).not.toContain("could not be prepared");
    expect(existsSync(marker)).toBe(false);
    expect(result.created).toBe(false);
    expect(existsSync(targetFile(root, "helper"))).toBe(false);
  });
});

describe("torii target add aws --check-account", () => {
  const add = (root: string, profile: string, account: string) =>
    runCli(["target", "add", "aws", profile, "--profile", profile, "--account-id", account, "--check-account"], { TORII_CONFIG_DIR: root });

  test("writes the target when STS names the --account-id", async () => {
    const root = awsTree();
    const result = await add(root, "dev", ACCOUNT);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(loadRegistry(root).providers.get("aws")?.targets.get("dev")?.config.identity.expect).toBe(ACCOUNT);
  });

  test("refuses another account than STS names and writes nothing", async () => {
    const root = awsTree();
    const result = await add(root, "dev", "444455556666");
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`profile dev is AWS account ${ACCOUNT}, not --account-id 444455556666; nothing was written`);
    expect(existsSync(targetFile(root, "dev"))).toBe(false);
  });

  test("refuses when STS refuses the credentials (403), naming the login step and no secret", async () => {
    const root = awsTree();
    const result = await add(root, "old", ACCOUNT);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("aws sso login --profile old");
    expect(existsSync(targetFile(root, "old"))).toBe(false);
    for (const secret of [...SECRETS, "AKIAOLDSTUB"]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });

  test("refuses a profile the check cannot judge, saying what to change and no secret", async () => {
    const root = awsTree();
    const result = await add(root, "mixed", ACCOUNT);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("(AmbiguousCredentialSource: AWS profile mixed names more than one credential source");
    expect(existsSync(targetFile(root, "mixed"))).toBe(false);
    for (const secret of [...SECRETS, "AKIADEVSTUB"]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });
});
