/**
 * An API parameter the AWS CLI sends the request to, through the real server
 * and the real AWS CLI (v1): botocore's switch_host_machinelearning moves
 * `machinelearning predict`'s SigV4-signed request to the host PredictEndpoint
 * names, as the locked --endpoint-url would, and the JSON carrier sets it
 * without any URL on the command line. With a rule accepting every
 * `machinelearning` call, the call is refused as a locked option and the
 * listener it names receives nothing; the same request shape without the
 * parameter still runs (it reaches the configured 127.0.0.1 endpoint).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { awsChildPath, awsHomeFor, startAnsweringEndpoint, untargetedAws, type AnsweringEndpoint } from "../support/real-aws.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";

let configured: AnsweringEndpoint;
let elsewhere: AnsweringEndpoint;
let session: McpSession;

beforeAll(async () => {
  [configured, elsewhere] = await Promise.all([startAnsweringEndpoint("{}"), startAnsweringEndpoint("{}")]);
  const home = awsHomeFor(configured.base);
  writeFileSync(
    path.join(home, ".aws", "credentials"),
    "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = dummy-secret-for-tests\n",
  );
  const root = makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": 'version: "1"\naccept:\n  - machinelearning\n' });
  session = await startSession(root, { HOME: home, PATH: awsChildPath() });
});

beforeEach(() => {
  configured.resetCount();
  elsewhere.resetCount();
});

afterAll(async () => {
  await Promise.all([session.close(), configured.close(), elsewhere.close()]);
});

describe("aws machinelearning predict: PredictEndpoint is the broker's endpoint", () => {
  test.each([
    [(host: string) => ["machinelearning", "predict", "--cli-input-json", JSON.stringify({ MLModelId: "m", Record: {}, PredictEndpoint: host })]],
    [(host: string) => ["machinelearning", "predict", `--cli-input-js=${JSON.stringify({ MLModelId: "m", Record: {}, PredictEndpoint: host })}`]],
  ])("a carrier naming another host is refused and nothing reaches that host (%#)", async (argv) => {
    const outcome = outcomeOf(await session.call("aws", { args: argv(elsewhere.base) }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-option" });
    expect(outcome.decision.reason).toContain("--cli-input-json");
    expect(outcome.execution).toBeUndefined();
    expect(elsewhere.requests()).toBe(0);
    expect(configured.requests()).toBe(0);
  });

  test("another machinelearning call with a carrier still runs, against the configured endpoint", async () => {
    const outcome = outcomeOf(
      await session.call("aws", { args: ["machinelearning", "get-ml-model", "--cli-input-json", '{"MLModelId":"m"}'] }, { timeout: 60_000 }),
    );
    expect(outcome.decision).toMatchObject({ result: "allow", rule: "machinelearning" });
    expect(configured.requests()).toBeGreaterThan(0);
    expect(elsewhere.requests()).toBe(0);
  });
});
