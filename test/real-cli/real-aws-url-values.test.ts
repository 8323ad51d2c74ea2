/**
 * The real AWS CLI (v1) and URL parameter values, with a local HTTP server on
 * 127.0.0.1 standing in for a metadata service: the CLI itself downloads such a
 * value (control run, without Torii); through Torii the call is refused before
 * anything is spawned and the server receives nothing; a parameter the CLI
 * passes on literally (`sqs --queue-url`) reaches the CLI as written.
 *
 * The operator's profile (HOME/.aws) holds dummy keys and `endpoint_url` on the
 * same server, so no request can leave the machine. The bundled provider is
 * used without `targeting.mode` (no lease, no STS check); its grammar, locked
 * options and removed_env stay.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { awsDirectory, untargetedAws } from "../support/real-aws.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

const RULES = `version: "1"\naccept:\n  - '/^[a-z0-9-]+ (describe|list|get)-[a-z0-9-]+( |$)/'\n`;

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly body: string;
}

let server: Server;
let base: string;
let seen: Seen[] = [];
let session: McpSession;
let home: string;
let childPath: string;

function answer(request: IncomingMessage, response: ServerResponse): void {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
  request.on("end", () => {
    seen.push({ method: request.method ?? "", url: request.url ?? "", body });
    if (request.method === "GET") {
      response.writeHead(200, { "content-type": "text/plain" }).end("i-0metadatacanary0");
      return;
    }
    // Any API call: a client error the CLI does not retry.
    response.writeHead(400, { "content-type": "application/x-amz-json-1.0" }).end('{"__type":"InvalidAddress","message":"stub"}');
  });
}

/** Runs the real aws directly (the control), with the same HOME and PATH as Torii's child. */
function runAwsDirectly(args: readonly string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("aws", args, { env: { PATH: childPath, HOME: home }, stdio: "ignore", shell: false });
    child.on("error", reject);
    child.on("exit", (code) => {
      resolve(code);
    });
  });
}

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  home = makeConfigTree({});
  mkdirSync(path.join(home, ".aws"));
  // A region for which awscli's overridesslcommonname does not replace the endpoint (sqs, emr, rds in us-east-1 ...).
  writeFileSync(path.join(home, ".aws", "config"), `[default]\nregion = eu-central-2\nendpoint_url = ${base}\noutput = json\nmax_attempts = 1\n`);
  writeFileSync(
    path.join(home, ".aws", "credentials"),
    "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = dummy-secret-for-tests\n",
  );
  childPath = `${awsDirectory()}${path.delimiter}${process.env.PATH ?? "/usr/bin:/bin"}`;
  const root = makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": RULES });
  session = await startSession(root, { HOME: home, PATH: childPath });
});

afterAll(async () => {
  await session.close();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

beforeEach(() => {
  seen = [];
});

describe("aws URL parameter values through Torii", () => {
  test("control: the AWS CLI itself downloads a URL parameter value (the class is real here)", async () => {
    await runAwsDirectly(["ec2", "describe-instances", "--instance-ids", `${base}/latest/meta-data`]);
    expect(seen.filter((request) => request.method === "GET").map((request) => request.url)).toContain("/latest/meta-data");
  });

  test.each([
    [["ec2", "describe-instances", "--instance-ids", "BASE/latest/meta-data"]],
    [["ec2", "describe-instances", "--instance-ids=BASE/latest/meta-data"]],
    [["ec2", "describe-instances", "--instance-ids", "i-1", "BASE/latest/meta-data"]],
    [["ec2", "describe-instances", "--instance", "BASE/latest/meta-data"]],
    [["s3", "ls", "BASE/latest/meta-data"]],
  ])("%j is refused before anything runs and the local server receives no request", async (template) => {
    const args = template.map((token) => token.replace("BASE", base));
    const outcome = outcomeOf(await session.call("aws", { args }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "forbidden-value" });
    expect(outcome.decision.reason).toContain(base);
    expect(outcome.decision.reason).not.toContain("meta-data");
    expect(outcome.execution).toBeUndefined();
    expect(seen).toEqual([]);
  });

  test("a parameter the CLI passes on literally (sqs --queue-url) reaches the CLI as written and is not downloaded", async () => {
    const queueUrl = `${base}/000000000000/torii-queue`;
    const outcome = outcomeOf(await session.call("aws", { args: ["sqs", "get-queue-attributes", "--queue-url", queueUrl] }, { timeout: 60_000 }));
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.execution?.exit_code).not.toBe(0);
    expect(seen.filter((request) => request.method === "GET")).toEqual([]);
    const apiCalls = seen.filter((request) => request.method === "POST");
    expect(apiCalls.length).toBeGreaterThan(0);
    // JSON (awsJson) or form-encoded (query) protocol: the queue URL itself is the parameter.
    expect(
      apiCalls.some((request) => request.body.includes(JSON.stringify(queueUrl).slice(1, -1)) || request.body.includes(encodeURIComponent(queueUrl))),
    ).toBe(true);
  });
});
