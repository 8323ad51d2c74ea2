/**
 * Red team 8, findings 1 and 4, through the real server and the real AWS CLI
 * (v1) with a 127.0.0.1 endpoint:
 *
 * - the AWS CLI drops a `--` after the service, so `iot-data -- get-thing-shadow
 *   … ~/.bashrc` is the write its `--`-free spelling is: held (no
 *   accept rule names the operation; headless, so denied), and `ec2 --
 *   run-instances --cli-input-json …` is denied by the deny rule its carrier
 *   could satisfy;
 * - a prefix grant shorter than the writing command path does not allow the
 *   write (as a short accept rule does not); one that names the path does.
 *
 * In every refused case the target file and the credentials file stay
 * byte-identical and the endpoint receives nothing. A path into the
 * credential store itself (~/.aws) is refused before any rule is read.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { awsChildPath, awsHomeFor, startAnsweringEndpoint, untargetedAws, type AnsweringEndpoint } from "../support/real-aws.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const RULES = `version: "1"\ndeny:\n  - ec2 run-instances --user-data\naccept:\n  - iot-data\n  - ec2\n`;
const PLANTED = "[default]\ncredential_process = /bin/sh -c 'touch /tmp/torii-owned'\n";
const CREDENTIALS = "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = dummy-secret-for-tests\n";
const PROFILE = "export PATH=$HOME/bin:$PATH\n";

let endpoint: AnsweringEndpoint;
let home: string;
let grantsRoot: string;
let rules: McpSession;
let grants: McpSession;

const credentialsFile = (): string => path.join(home, ".aws", "credentials");
/** A file outside the credential stores the agent would like to overwrite. */
const profileFile = (): string => path.join(home, ".bashrc");
const shadowInto = (file: string): string[] => ["iot-data", "get-thing-shadow", "--thing-name", "t", file];

beforeAll(async () => {
  endpoint = await startAnsweringEndpoint(PLANTED);
  home = awsHomeFor(endpoint.base);
  const env = { HOME: home, PATH: awsChildPath() };
  const tree = (text: string): string => makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": text });
  grantsRoot = tree(`version: "1"\ndeny: []\naccept: []\n`);
  [rules, grants] = await Promise.all([startSession(tree(RULES), env), startSession(grantsRoot, env)]);
});

afterAll(async () => {
  await Promise.all([rules.close(), grants.close(), endpoint.close()]);
});

beforeEach(() => {
  writeFileSync(credentialsFile(), CREDENTIALS);
  writeFileSync(profileFile(), PROFILE);
  endpoint.resetCount();
});

function expectUntouched(): void {
  expect(readFileSync(credentialsFile(), "utf8")).toBe(CREDENTIALS);
  expect(readFileSync(profileFile(), "utf8")).toBe(PROFILE);
  expect(endpoint.requests()).toBe(0);
}

describe("aws: a -- after the service is read as the CLI reads it", () => {
  test.each([
    [["iot-data", "--", "get-thing-shadow", "--thing-name", "t", "FILE"]],
    [["iot-data", "get-thing-shadow", "--", "--thing-name", "t", "FILE"]],
    [["--", "iot-data", "--", "get-thing-shadow", "--thing-name", "t", "--", "FILE"]],
  ])("%j is held like its --free spelling: nothing runs, the file stays byte-identical", async (template) => {
    const args = template.map((token) => (token === "FILE" ? profileFile() : token));
    const outcome = outcomeOf(await rules.call("aws", { args }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "headless" });
    expect(outcome.execution).toBeUndefined();
    expectUntouched();
  });

  test("the same write into the credential store is refused before any rule, in every spelling", async () => {
    for (const args of [shadowInto(credentialsFile()), ["iot-data", "--", "get-thing-shadow", "--thing-name", "t", credentialsFile()]]) {
      const outcome = outcomeOf(await rules.call("aws", { args }));
      expect(outcome.decision, args.join(" ")).toMatchObject({ result: "deny", source: "forbidden-value" });
      expect(outcome.execution).toBeUndefined();
    }
    expectUntouched();
  });

  test("a folder above the store (the home, in the spellings the CLI resolves) is refused before any rule", async () => {
    for (const folder of [home, `${home}/x/..`, `${home.toUpperCase()}/.A*S/credentials`, "$HOME"]) {
      const outcome = outcomeOf(await rules.call("aws", { args: shadowInto(folder) }));
      expect(outcome.decision, folder).toMatchObject({ result: "deny", source: "forbidden-value" });
      expect(outcome.execution).toBeUndefined();
    }
    expectUntouched();
  });

  test("ec2 -- run-instances --cli-input-json is denied by the deny rule its carrier could satisfy", async () => {
    const body = '{"ImageId":"ami-1","UserData":"ZXZpbA==","MinCount":1,"MaxCount":1}';
    for (const args of [
      ["ec2", "run-instances", "--cli-input-json", body],
      ["ec2", "--", "run-instances", "--cli-input-json", body],
    ]) {
      const outcome = outcomeOf(await rules.call("aws", { args }));
      expect(outcome.decision, args.join(" ")).toMatchObject({ result: "deny", source: "explicit-deny", rule: "ec2 run-instances --user-data" });
    }
    expect(endpoint.requests()).toBe(0);
  });

  test("torii policy check agrees: s3 -- cp to ~/.bashrc is not accepted by the rule s3", async () => {
    const root = makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": `version: "1"\naccept:\n  - s3\n` });
    const result = await runCli(["policy", "check", "aws", "--", "s3", "--", "cp", "s3://b/k", profileFile()], {
      TORII_CONFIG_DIR: root,
      HOME: home,
    });
    const report = JSON.parse(result.stdout) as { decision: string; canonical_argv: string[] };
    expect(report.decision).toBe("unresolved");
    expect(report.canonical_argv).not.toContain("--");
  });
});

describe("grants hold a file write as accept rules do", () => {
  test("a prefix grant shorter than the writing command path does not allow the write; one naming it does", async () => {
    const env = { TORII_CONFIG_DIR: grantsRoot, HOME: home };
    expect((await runCli(["grant", "add", "aws", "--prefix", "1", "--for", "5", "--", "iot-data"], env)).status).toBe(0);
    const short = outcomeOf(await grants.call("aws", { args: shadowInto(profileFile()) }));
    expect(short.decision).toMatchObject({ result: "deny", source: "headless" });
    expect(short.execution).toBeUndefined();
    expectUntouched();

    expect((await runCli(["grant", "add", "aws", "--prefix", "2", "--for", "5", "--", "iot-data", "get-thing-shadow"], env)).status).toBe(0);
    const shadow = path.join(home, "shadow.json");
    const named = outcomeOf(await grants.call("aws", { args: shadowInto(shadow) }, { timeout: 60_000 }));
    expect(named.decision).toMatchObject({ result: "allow", source: "grant" });
    expect(readFileSync(shadow, "utf8")).toBe(PLANTED);
    expect(readFileSync(credentialsFile(), "utf8")).toBe(CREDENTIALS);
  });
});
