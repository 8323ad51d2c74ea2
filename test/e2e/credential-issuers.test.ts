/**
 * Credential issuers through the real server, with a fake `aws` at the boundary
 * that records every run (docs/policy.md, "Credential issuers"): `iam
 * create-access-key` prints a permanent key, `sso get-role-credentials` and `ecr
 * get-login-password` credentials that outlive any lease. Neither a broad accept
 * rule (`iam`, `/.*\/`) nor a prefix grant (`iam`) nor an exact grant lets them
 * run: the bundled provider's locked commands refuse them before any rule is
 * read, in the spellings the AWS CLI reads as the same command. Reads under the
 * same rule and grant run.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { underRules, type CallView } from "../support/rules-views.js";
import { untargetedAws } from "../support/real-aws.js";
import { runCli } from "../support/run-cli.js";

/** A fake aws: records its argv and prints what a credential issuer would. */
const FAKE_AWS = `
const fs = require("node:fs");
fs.appendFileSync(process.env.HOME + "/runs.log", JSON.stringify(process.argv.slice(2)) + "\\n");
process.stdout.write(JSON.stringify({ AccessKey: { AccessKeyId: "AKIAFAKE", SecretAccessKey: "fake-secret-from-the-cli" } }));
`;

const ISSUERS = [
  ["iam", "create-access-key", "--user-name", "u"],
  ["--output", "json", "iam", "create-access-key"],
  ["iam", "--", "create-access-key", "--user-name", "u"],
  ["sso", "get-role-credentials", "--role-name", "r", "--account-id", "111111111111", "--access-token", "t"],
  ["ecr", "get-login-password"],
];

const BROAD = `version: "1"\naccept:\n  - iam\n  - sso\n  - ecr\n  - /.*/\n`;
const EMPTY = `version: "1"\ndeny: []\naccept: []\n`;

let home: string;
let root: string;
let session: McpSession;
/** The one server under the broad rules, and under no rules (where only grants allow; each call writes its rules first). */
let broad: CallView;
let granted: CallView;
const runsLog = (): string => path.join(home, "runs.log");
const rulesFile = (): string => path.join(root, "providers", "aws", "rules.yaml");
const runs = (): string[] => readFileSync(runsLog(), "utf8").split("\n").filter(Boolean);

beforeAll(async () => {
  const bin = makeFakeBin({ aws: FAKE_AWS });
  home = makeConfigTree({});
  root = makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": BROAD });
  session = await startSession(root, { HOME: home, PATH: `${bin.dir}${path.delimiter}/usr/bin:/bin` });
  broad = underRules(session, rulesFile(), BROAD);
  granted = underRules(session, rulesFile(), EMPTY);
}, 30_000);

afterAll(async () => {
  await session.close();
});

beforeEach(() => {
  writeFileSync(runsLog(), "");
});

describe("aws credential issuers through Torii", () => {
  test.each(ISSUERS.map((args) => [args]))("accept rules iam, sso, ecr and /.*/ do not run %j: locked command, aws never runs", async (args) => {
    const outcome = outcomeOf(await broad.call("aws", { args }));
    expect(outcome.decision).toMatchObject({ result: "deny", source: "locked-command" });
    expect(outcome.decision.reason).toContain("it prints a credential usable outside Torii");
    expect(outcome.execution).toBeUndefined();
    expect(runs()).toEqual([]);
  });

  test("a read under the same rules runs", async () => {
    const outcome = outcomeOf(await broad.call("aws", { args: ["iam", "list-access-keys"] }));
    expect(outcome.decision.result).toBe("allow");
    expect(runs()).toEqual([JSON.stringify(["iam", "list-access-keys"])]);
  });

  test("a prefix grant `iam` and an exact grant of the call do not run it; the grant's reads run", async () => {
    const env = { TORII_CONFIG_DIR: root, HOME: home };
    // The grants are added under the rules their calls run under: none.
    writeFileSync(rulesFile(), EMPTY);
    expect((await runCli(["grant", "add", "aws", "--prefix", "1", "--for", "5", "--", "iam"], env)).status).toBe(0);
    const exact = await runCli(["grant", "add", "aws", "--exact", "--for", "5", "--", "iam", "create-access-key", "--user-name", "u"], env);
    for (const args of [ISSUERS[0]!, ISSUERS[1]!, ISSUERS[2]!]) {
      const outcome = outcomeOf(await granted.call("aws", { args }));
      expect(outcome.decision, `${args.join(" ")} (exact grant add: ${String(exact.status)})`).toMatchObject({ result: "deny", source: "locked-command" });
      expect(outcome.execution).toBeUndefined();
    }
    expect(runs()).toEqual([]);
    const read = outcomeOf(await granted.call("aws", { args: ["iam", "list-users"] }));
    expect(read.decision).toMatchObject({ result: "allow", source: "grant" });
    expect(runs()).toEqual([JSON.stringify(["iam", "list-users"])]);
  });
});
