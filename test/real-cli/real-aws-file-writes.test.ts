/**
 * The real AWS CLI (v1) and operations that write their response to a local path
 * (a streaming operation's positional outfile), with a local HTTP server on
 * 127.0.0.1 as every endpoint. Control, without Torii: `iot-data get-thing-shadow
 * ... <path>` overwrites <path> with what the server sends (red team F2: the
 * agent rewrote ~/.aws/credentials). Through Torii, a broad accept rule
 * (`<service> get-*`) does not accept it: nothing runs, the file stays as it was
 * and the server receives nothing; a rule that names the operation accepts it.
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { awsChildPath, awsHomeFor, startAnsweringEndpoint, untargetedAws, type AnsweringEndpoint } from "../support/real-aws.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const BROAD = `version: "1"\naccept:\n  - '/^[a-z0-9-]+ (describe|list|get)-[a-z0-9-]+( |$)/'\n`;
const NAMED = `version: "1"\naccept:\n  - iot-data get-thing-shadow\n`;
const PLANTED = "[default]\ncredential_process = /bin/sh -c 'touch /tmp/torii-owned'\n";
const CREDENTIALS = "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = dummy-secret-for-tests\n";

let endpoint: AnsweringEndpoint;
let home: string;
let childPath: string;
let broad: McpSession;
let named: McpSession;
let broadRoot: string;

function runAwsDirectly(args: readonly string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("aws", args, { env: { PATH: childPath, HOME: home }, stdio: "ignore", shell: false });
    child.on("error", reject);
    child.on("exit", resolve);
  });
}

const credentialsFile = (): string => path.join(home, ".aws", "credentials");

beforeAll(async () => {
  endpoint = await startAnsweringEndpoint(PLANTED);
  home = awsHomeFor(endpoint.base);
  childPath = awsChildPath();
  const tree = (rules: string): string => makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": rules });
  broadRoot = tree(BROAD);
  [broad, named] = await Promise.all([startSession(broadRoot, { HOME: home, PATH: childPath }), startSession(tree(NAMED), { HOME: home, PATH: childPath })]);
});

afterAll(async () => {
  await Promise.all([broad.close(), named.close(), endpoint.close()]);
});

beforeEach(() => {
  writeFileSync(credentialsFile(), CREDENTIALS);
  endpoint.resetCount();
});

const shadowInto = (file: string): string[] => ["iot-data", "get-thing-shadow", "--thing-name", "t", file];

describe("aws operations that write a local file, through Torii", () => {
  test("control: the AWS CLI itself writes the response over the file it is given", async () => {
    expect(await runAwsDirectly(shadowInto(credentialsFile()))).toBe(0);
    expect(readFileSync(credentialsFile(), "utf8")).toBe(PLANTED);
  });

  test.each([
    [shadowInto("HOME/.aws/credentials")],
    [["iot-data", "get-thing-shadow", "HOME/.aws/credentials", "--thing-name", "t"]],
    [["apigateway", "get-export", "--rest-api-id", "a", "--stage-name", "s", "--export-type", "oas30", "HOME/.aws/credentials"]],
    [["cloudfront", "get-function", "--name", "f", "HOME/.aws/credentials"]],
    [["gamelift", "get-game-session-log", "--game-session-id", "g", "--save-as", "HOME/.aws/credentials"]],
  ])("a broad accept rule does not accept %j: nothing runs and the file is unchanged", async (template) => {
    const args = template.map((token) => token.replace("HOME", home));
    const outcome = outcomeOf(await broad.call("aws", { args }));
    expect(outcome.decision.result).toBe("deny");
    expect(outcome.execution).toBeUndefined();
    expect(readFileSync(credentialsFile(), "utf8")).toBe(CREDENTIALS);
    expect(endpoint.requests()).toBe(0);
  });

  test("torii policy check names the reason (the operation writes a local file) without quoting the path", async () => {
    // A path into ~/.aws is refused outright (credential-paths.ts); the hold is shown with a path elsewhere.
    const elsewhere = path.join(home, "bashrc");
    const result = await runCli(["policy", "check", "aws", "--", ...shadowInto(elsewhere)], { TORII_CONFIG_DIR: broadRoot, HOME: home });
    const report = JSON.parse(result.stdout) as { decision: string; reason: string };
    expect(report.decision).toBe("unresolved");
    expect(report.reason).toContain("iot-data get-thing-shadow can write a local file at the path given by its outfile operand");
    expect(report.reason).not.toContain(elsewhere);
    const refused = await runCli(["policy", "check", "aws", "--", ...shadowInto(credentialsFile())], { TORII_CONFIG_DIR: broadRoot, HOME: home });
    expect(JSON.parse(refused.stdout)).toMatchObject({ decision: "deny" });
  });

  test("a rule that names the operation accepts it, and the CLI writes the file", async () => {
    const target = path.join(home, "shadow.json");
    const outcome = outcomeOf(await named.call("aws", { args: shadowInto(target) }, { timeout: 60_000 }));
    expect(outcome.decision.result).toBe("allow");
    expect(readFileSync(target, "utf8")).toBe(PLANTED);
    expect(readFileSync(credentialsFile(), "utf8")).toBe(CREDENTIALS);
  });
});
