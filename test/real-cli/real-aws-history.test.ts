/**
 * With `cli_history = enabled` in the operator's AWS config, the real `aws` CLI records
 * every command's request and response (~/.aws/cli/history), for every profile and
 * whether or not Torii ran it; `aws history show` prints them. An operator's own
 * `sts get-session-token`, run outside Torii, leaves its SecretAccessKey and
 * SessionToken there. With rules that accept `history`, the built server refuses the
 * call (the `aws_profile` command floor) before the account check or the CLI runs.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bundledProviderFiles, makeConfigTree } from "../support/config-tree.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { awsChildPath } from "../support/real-aws.js";
import { runCli } from "../support/run-cli.js";
import { startStsStub, type StsStub } from "../support/sts-stub.js";
import { tempDirectory } from "../support/temp-dirs.js";

const run = promisify(execFile);
const ACCOUNT = "111122223333";
const ISSUED_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYISSUEDKEY";
const ISSUED_TOKEN = `FwoGZXIvYXdzEISSUED${"Q".repeat(60)}`;

let stub: StsStub;
let issuer: Server;
let root: string;
let home: string;
let session: McpSession;

beforeAll(async () => {
  stub = await startStsStub({ identities: { AKIADEVSTUB: { account: ACCOUNT } } });
  // The endpoint the operator's own get-session-token reached, outside Torii (in this process: the CLI runs asynchronously).
  issuer = createServer((_request, response) => {
    response.setHeader("content-type", "text/xml");
    response.end(
      `<GetSessionTokenResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetSessionTokenResult><Credentials><AccessKeyId>ASIAISSUEDEXAMPLE001</AccessKeyId><SecretAccessKey>${ISSUED_SECRET}</SecretAccessKey><SessionToken>${ISSUED_TOKEN}</SessionToken><Expiration>2030-01-01T00:00:00Z</Expiration></Credentials></GetSessionTokenResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></GetSessionTokenResponse>`,
    );
  });
  await new Promise<void>((resolve) => issuer.listen(0, "127.0.0.1", resolve));
  const address = issuer.address();
  const issuerUrl = `http://127.0.0.1:${String(typeof address === "object" && address !== null ? address.port : 0)}`;
  home = tempDirectory("torii-aws-history-");
  const config = path.join(home, "config");
  const credentials = path.join(home, "credentials");
  writeFileSync(config, `[default]\ncli_history = enabled\n[profile dev]\nregion = eu-west-1\nendpoint_url = ${stub.url}\ncli_history = enabled\n`);
  writeFileSync(credentials, "[dev]\naws_access_key_id = AKIADEVSTUB\naws_secret_access_key = dev-secret-value-0001\n", { mode: 0o600 });
  // The real aws first on PATH, as in the other real-aws files: not through a version manager's shim (version-shims.test.ts runs that).
  const awsEnv = { PATH: awsChildPath(), HOME: home, AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: credentials };
  await run("aws", ["sts", "get-session-token", "--profile", "dev", "--endpoint-url", issuerUrl], { env: awsEnv });
  // The record is there: the real CLI prints it back.
  expect((await run("aws", ["history", "show"], { env: awsEnv })).stdout).toContain(ISSUED_SECRET);
  root = makeConfigTree({
    ...bundledProviderFiles("aws"),
    "providers/aws/rules.yaml": 'version: "1"\naccept: [history, "sts get-caller-identity"]\n',
    "providers/aws/.env": `AWS_CONFIG_FILE=${config}\nAWS_SHARED_CREDENTIALS_FILE=${credentials}\n`,
    "providers/aws/targets/dev/target.yaml": `version: "1"\nname: dev\nidentity: {provider: aws, profile: dev, expect: "${ACCOUNT}"}\n`,
  });
  expect((await runCli(["target", "activate", "aws", "dev", "--add"], { TORII_CONFIG_DIR: root })).status).toBe(0);
  session = await startSession(root, { HOME: home, PATH: awsEnv.PATH });
});

afterAll(async () => {
  await session.close();
  await stub.close();
  await new Promise<void>((resolve) => issuer.close(() => resolve()));
});

describe("aws history", () => {
  test.each([[["history", "show"]], [["history", "list"]], [["history", "show", "--include", "HTTP_RESPONSE"]]])(
    "%j is refused although a rule accepts history; nothing runs",
    async (args) => {
      const before = stub.requests.length;
      const outcome = outcomeOf(await session.call("aws", { args, target: "dev" }, { timeout: 60_000 }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-command" });
      expect(outcome.execution).toBeUndefined();
      expect(JSON.stringify(outcome)).not.toContain(ISSUED_SECRET);
      expect(stub.requests.length).toBe(before);
    },
    60_000,
  );

  test("a call the rules accept still runs with the real CLI", async () => {
    const outcome = outcomeOf(await session.call("aws", { args: ["sts", "get-caller-identity"], target: "dev" }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "allow" });
    expect(JSON.parse(outcome.execution?.stdout ?? "{}")).toMatchObject({ Account: ACCOUNT });
  }, 60_000);
});
