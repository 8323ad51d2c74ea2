/**
 * The account check of aws_profile targets, end to end: the built server under
 * the MCP SDK's real client, the real AWS SDK making the STS request, the real
 * `aws` CLI running the call, both against a local STS endpoint (the operator's
 * profile `endpoint_url` in a scratch AWS config named by the provider's `.env`).
 * The server's own environment points at a second, hostile endpoint with other
 * keys; nothing may ever reach it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { awsChildPath } from "../support/real-aws.js";
import { runCli } from "../support/run-cli.js";
import { startStsStub, type StsStub, type StsStubRequest } from "../support/sts-stub.js";
import { tempDirectory } from "../support/temp-dirs.js";

const RULES = 'version: "1"\naccept: ["sts get-caller-identity"]\ndeny: ["sts decode-authorization-message"]\n';
const ACCOUNT = "111122223333";

function target(name: string, profile: string, expect: string): string {
  return `version: "1"\nname: ${name}\nidentity: {provider: aws, profile: ${profile}, expect: "${expect}"}\n`;
}

let stub: StsStub;
let hostile: StsStub;
let root: string;
let session: McpSession;
let processState: string;
/** One line per run of the credential helper: the TORII_HELPER_MARK it saw. */
let helperRuns: string;

const fromCli = (request: StsStubRequest): boolean => request.userAgent.startsWith("aws-cli/");
const fromSdk = (request: StsStubRequest): boolean => request.userAgent.startsWith("aws-sdk-js/");

beforeAll(async () => {
  stub = await startStsStub({
    identities: { AKIADEVSTUB: { account: ACCOUNT }, AKIAPROCESSA: { account: ACCOUNT }, AKIAPROCESSB: { account: "444455556666" } },
    expired: ["AKIAOLDSTUB"],
  });
  hostile = await startStsStub({ identities: { AKIAHOSTILE: { account: "999999999999" } } });
  const aws = tempDirectory("torii-aws-");
  const config = path.join(aws, "config");
  const credentials = path.join(aws, "credentials");
  const profile = (name: string, extra = ""): string => `[profile ${name}]\nregion = eu-west-1\nendpoint_url = ${stub.url}\n${extra}`;
  // A credential_process whose answer follows state of its own (aws-vault, 1Password, granted): the AWS files stay
  // byte for byte the same when the operator switches it to another account.
  processState = path.join(aws, "process-account");
  writeFileSync(processState, "A\n");
  const helper = path.join(aws, "credential-helper");
  const answer = (key: string): string => `echo '{"Version": 1, "AccessKeyId": "${key}", "SecretAccessKey": "process-secret-value"}'`;
  helperRuns = path.join(aws, "helper-runs");
  const record = `echo "\${TORII_HELPER_MARK-unset}" >> '${helperRuns}'\n`;
  writeFileSync(helper, `#!/bin/sh\n${record}if [ "$(cat '${processState}')" = B ]; then ${answer("AKIAPROCESSB")}; else ${answer("AKIAPROCESSA")}; fi\n`, {
    mode: 0o755,
  });
  // `mixed` names two credential sources, which the AWS CLI and the SDK would try in different orders.
  writeFileSync(
    config,
    `${profile("dev")}${profile("old")}${profile("mixed", "credential_process = /bin/false\n")}${profile("proc", `credential_process = ${helper}\n`)}`,
  );
  writeFileSync(
    credentials,
    "[dev]\naws_access_key_id = AKIADEVSTUB\naws_secret_access_key = dev-secret-value-0001\n[mixed]\naws_access_key_id = AKIADEVSTUB\naws_secret_access_key = dev-secret-value-0001\n[old]\naws_access_key_id = AKIAOLDSTUB\naws_secret_access_key = old-secret-value-0002\n",
    { mode: 0o600 },
  );
  root = makeConfigTree({
    ...bundledProviderFiles("aws"),
    "providers/aws/rules.yaml": RULES,
    // The operator's own file names the AWS files: it reaches the CLI and the STS probe alike.
    // TORII_HELPER_MARK: what a credential helper reads from its environment (aws-vault's backend, a token).
    "providers/aws/.env": `AWS_CONFIG_FILE=${config}\nAWS_SHARED_CREDENTIALS_FILE=${credentials}\nTORII_HELPER_MARK=from-dotenv\n`,
    "providers/aws/targets/dev/target.yaml": target("dev", "dev", ACCOUNT),
    "providers/aws/targets/wrong/target.yaml": target("wrong", "dev", "444455556666"),
    "providers/aws/targets/old/target.yaml": target("old", "old", ACCOUNT),
    "providers/aws/targets/idle/target.yaml": target("idle", "dev", ACCOUNT),
    "providers/aws/targets/mixed/target.yaml": target("mixed", "mixed", ACCOUNT),
    "providers/aws/targets/proc/target.yaml": target("proc", "proc", ACCOUNT),
  });
  for (const name of ["dev", "wrong", "old", "mixed", "proc"]) {
    expect((await runCli(["target", "activate", "aws", name, "--add"], { TORII_CONFIG_DIR: root })).status).toBe(0);
  }
  session = await startSession(root, {
    // The real aws first on PATH, as in the other real-aws files: not through a version manager's shim (version-shims.test.ts runs that).
    PATH: awsChildPath(),
    TORII_HELPER_MARK: "from-server",
    AWS_ENDPOINT_URL: hostile.url,
    AWS_ENDPOINT_URL_STS: hostile.url,
    AWS_ACCESS_KEY_ID: "AKIAHOSTILE",
    AWS_SECRET_ACCESS_KEY: "hostile-secret",
    AWS_PROFILE: "hostile",
  });
});

afterAll(async () => {
  await session.close();
  await stub.close();
  await hostile.close();
});

/** The requests the stub received while `run` ran. */
async function requestsDuring(run: () => Promise<void>): Promise<StsStubRequest[]> {
  const before = stub.requests.length;
  await run();
  return stub.requests.slice(before);
}

describe("aws_profile identity through STS", () => {
  test("a matching account allows the call; the probe and the CLI reach the same endpoint with the same profile", async () => {
    let outcome: ReturnType<typeof outcomeOf> | undefined;
    const requests = await requestsDuring(async () => {
      outcome = outcomeOf(await session.call("aws", { args: ["sts", "get-caller-identity"], target: "dev" }, { timeout: 60_000 }));
    });
    expect(outcome?.decision).toMatchObject({ result: "allow", source: "rules" });
    expect(outcome?.execution?.exit_code).toBe(0);
    expect(JSON.parse(outcome?.execution?.stdout ?? "{}")).toMatchObject({ Account: ACCOUNT });
    const probe = requests.filter(fromSdk);
    const cli = requests.filter(fromCli);
    expect(probe).toHaveLength(1);
    expect(cli).toHaveLength(1);
    for (const request of [...probe, ...cli]) {
      expect(request).toMatchObject({ method: "POST", path: "/", action: "GetCallerIdentity", accessKeyId: "AKIADEVSTUB" });
    }
    expect(hostile.requests).toEqual([]);
  });

  test("a second call within cache_ttl_seconds makes no STS request of its own", async () => {
    const requests = await requestsDuring(async () => {
      const outcome = outcomeOf(await session.call("aws", { args: ["sts", "get-caller-identity"], target: "dev" }, { timeout: 60_000 }));
      expect(outcome.execution?.exit_code).toBe(0);
    });
    expect(requests.filter(fromSdk)).toEqual([]);
    expect(requests.filter(fromCli)).toHaveLength(1);
  });

  test("another account denies identity-mismatch before the CLI runs", async () => {
    const requests = await requestsDuring(async () => {
      const outcome = outcomeOf(await session.call("aws", { args: ["sts", "get-caller-identity"], target: "wrong" }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "identity-mismatch" });
      expect(outcome.execution).toBeUndefined();
    });
    expect(requests.filter(fromSdk)).toHaveLength(1);
    expect(requests.filter(fromCli)).toEqual([]);
  });

  test("expired credentials (403) deny session-invalid with the operator's next step, never a secret", async () => {
    const requests = await requestsDuring(async () => {
      const result = await session.call("aws", { args: ["sts", "get-caller-identity"], target: "old" });
      const outcome = outcomeOf(result);
      expect(outcome.decision).toMatchObject({ result: "deny", source: "session-invalid" });
      expect(outcome.decision.reason).toContain("aws sso login --profile old");
      expect(outcome.execution).toBeUndefined();
      expect(JSON.stringify(result)).not.toMatch(/old-secret-value|AKIAOLDSTUB/u);
    });
    expect(requests.filter(fromSdk)).toHaveLength(1);
    expect(requests.filter(fromCli)).toEqual([]);
    expect(readFileSync(path.join(root, "audit.jsonl"), "utf8")).not.toMatch(/old-secret-value|dev-secret-value/u);
  });

  test("credentials from a credential_process are checked at every call: its answer changes with no file changing (red team atk-secrets-18)", async () => {
    const first = outcomeOf(await session.call("aws", { args: ["sts", "get-caller-identity"], target: "proc" }, { timeout: 60_000 }));
    expect(first.execution?.exit_code).toBe(0);
    expect(JSON.parse(first.execution?.stdout ?? "{}")).toMatchObject({ Account: ACCOUNT });
    // The operator's helper now answers for another account; the AWS files are untouched.
    writeFileSync(processState, "B\n");
    const requests = await requestsDuring(async () => {
      const second = outcomeOf(await session.call("aws", { args: ["sts", "get-caller-identity"], target: "proc" }, { timeout: 60_000 }));
      expect(second.decision).toMatchObject({ result: "deny", source: "identity-mismatch" });
      expect(second.execution).toBeUndefined();
    });
    expect(requests.filter(fromSdk)).toEqual([expect.objectContaining({ accessKeyId: "AKIAPROCESSB" })]);
    expect(requests.filter(fromCli)).toEqual([]);
  });

  test("the check runs the credential helper with the call's environment, as the CLI does, never the server's", async () => {
    // The runs of the test above: its first call's check and CLI, its second call's check.
    const runs = readFileSync(helperRuns, "utf8").trim().split("\n");
    expect(runs.length).toBeGreaterThanOrEqual(3);
    // Before: the check's runs saw "from-server" (the SDK's exec with the server's environment), the CLI's "from-dotenv".
    expect(new Set(runs)).toEqual(new Set(["from-dotenv"]));
  });

  test("denied calls make no STS request at all: policy deny, no lease", async () => {
    const requests = await requestsDuring(async () => {
      const denied = outcomeOf(await session.call("aws", { args: ["sts", "decode-authorization-message", "--encoded-message", "x"], target: "dev" }));
      expect(denied.decision).toMatchObject({ result: "deny", source: "explicit-deny" });
      const inactive = outcomeOf(await session.call("aws", { args: ["sts", "get-caller-identity"], target: "idle" }));
      expect(inactive.decision).toMatchObject({ result: "deny", source: "target-inactive" });
    });
    expect(requests).toEqual([]);
  });

  test("a profile the check refuses (two credential sources) fails the call before any request, saying what to change and no secret", async () => {
    const requests = await requestsDuring(async () => {
      const result = await session.call("aws", { args: ["sts", "get-caller-identity"], target: "mixed" });
      const outcome = outcomeOf(result);
      expect(outcome.execution).toBeUndefined();
      const text = JSON.stringify(result);
      expect(text).toContain("AmbiguousCredentialSource: AWS profile mixed names more than one credential source");
      expect(text).not.toMatch(/dev-secret-value|AKIADEVSTUB|bin\/false/u);
    });
    expect(requests).toEqual([]);
  });
});
