/**
 * An accept rule naming an operation's option, through the real server and the
 * real AWS CLI (v1) with a 127.0.0.1 endpoint that records what it receives:
 * argparse keeps an option's last occurrence and `--no-dry-run` resets
 * `--dry-run`, so `accept: [ec2 terminate-instances --dry-run]` must not run
 * `… --dry-run --no-dry-run` (a real termination), nor `accept: [s3api
 * put-object-acl --acl private]` run `… --acl private --acl public-read-write`.
 * The calls that keep the rule's value run, and the endpoint sees that value.
 */
import { writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { awsChildPath, awsHomeFor, untargetedAws } from "../support/real-aws.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

const RULES = `version: "1"\ndeny: []\naccept:\n  - ec2 terminate-instances --dry-run\n  - s3api put-object-acl --acl private\n`;

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let received: Received[] = [];
let close: () => Promise<void>;
let session: McpSession;

beforeAll(async () => {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(200, { "content-type": "text/xml" }).end("<Response/>");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  const home = awsHomeFor(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`);
  writeFileSync(
    path.join(home, ".aws", "credentials"),
    "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = dummy-secret-for-tests\n",
  );
  const root = makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": RULES });
  session = await startSession(root, { HOME: home, PATH: awsChildPath() });
});

afterAll(async () => {
  await Promise.all([session.close(), close()]);
});

beforeEach(() => {
  received = [];
});

const terminate = ["ec2", "terminate-instances", "--instance-ids", "i-1"];
const acl = ["s3api", "put-object-acl", "--bucket", "b", "--key", "k"];

describe("aws: an accept rule naming an operation's option accepts only calls that keep it", () => {
  test("--dry-run runs as a dry run", async () => {
    const outcome = outcomeOf(await session.call("aws", { args: [...terminate, "--dry-run"] }, { timeout: 60_000 }));
    expect(outcome.decision).toMatchObject({ result: "allow", rule: "ec2 terminate-instances --dry-run" });
    expect(received.map((request) => new URLSearchParams(request.body).get("DryRun"))).toEqual(["true"]);
  });

  test.each([[["--dry-run", "--no-dry-run"]], [["--dry-run", "--no-dry"]]])(
    "%j (the CLI sends DryRun=false) is not accepted: nothing is sent",
    async (switches) => {
      const outcome = outcomeOf(await session.call("aws", { args: [...terminate, ...switches] }));
      expect(outcome.decision).toMatchObject({ result: "deny", source: "headless" });
      expect(outcome.execution).toBeUndefined();
      expect(received).toEqual([]);
    },
  );

  test("--acl private runs with the private ACL; a second --acl after it is not accepted", async () => {
    const kept = outcomeOf(await session.call("aws", { args: [...acl, "--acl", "private"] }, { timeout: 60_000 }));
    expect(kept.decision).toMatchObject({ result: "allow", rule: "s3api put-object-acl --acl private" });
    expect(received.map((request) => request.headers["x-amz-acl"])).toEqual(["private"]);

    received = [];
    const overridden = outcomeOf(await session.call("aws", { args: [...acl, "--acl", "private", "--acl", "public-read-write"] }));
    expect(overridden.decision).toMatchObject({ result: "deny", source: "headless" });
    expect(overridden.execution).toBeUndefined();
    expect(received).toEqual([]);
  });
});
