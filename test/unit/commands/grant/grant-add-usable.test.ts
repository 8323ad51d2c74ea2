/**
 * `torii grant add` writes only a grant the server would use for the argv it
 * was given, judged as the approval page and `torii approvals approve` judge
 * it (approval/lasting-answers.ts): nothing for a denied argv, nothing for an
 * argv holding characters that do not show on screen, and no prefix grant
 * shorter than the command of a call held for a local file write or read.
 * Driven in-process (runCli); the bundled aws provider without targets.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { expectUsageError, jsonOutput } from "../../../support/cli-expect.js";
import { makeConfigTree } from "../../../support/config-tree.js";
import { untargetedAws } from "../../../support/real-aws.js";
import { runCli } from "../../../support/run-cli.js";

const RULES = 'version: "1"\ndeny:\n  - ec2 terminate-instances\naccept: []\n';

function awsTree(): { env: Record<string, string>; grants: string } {
  const root = makeConfigTree({ ...untargetedAws(), "providers/aws/rules.yaml": RULES });
  return { env: { TORII_CONFIG_DIR: root }, grants: path.join(root, "providers", "aws", "grants") };
}

/** `iot-data get-thing-shadow … <file>` writes a local file: the server holds it for a grant naming its command (two tokens). */
const SHADOW = ["iot-data", "get-thing-shadow", "--thing-name", "t", "/tmp/shadow.json"];

describe("torii grant add refuses a grant the server would not use", () => {
  test("a prefix shorter than a held call's writing command is refused and nothing is written; one naming it is written", async () => {
    const tree = awsTree();
    expectUsageError(
      await runCli(["grant", "add", "aws", "--prefix", "1", "--", ...SHADOW], tree.env),
      /refused: a prefix grant for this call covers at least 2 of its \d+ tokens, not 1: the call writes a local file/u,
    );
    expect(existsSync(tree.grants)).toBe(false);
    const written = jsonOutput(await runCli(["grant", "add", "aws", "--prefix", "2", "--json", "--", ...SHADOW], tree.env));
    expect(written).toMatchObject({ mode: "prefix", tokens: ["iot-data", "get-thing-shadow"] });
  });

  test("a short prefix for a call that is not held is still written (it is the grant the page offers)", async () => {
    const tree = awsTree();
    const written = jsonOutput(await runCli(["grant", "add", "aws", "--prefix", "1", "--json", "--", "iot-data", "list-named-shadows-for-thing"], tree.env));
    expect(written).toMatchObject({ mode: "prefix", token_count: 1 });
  });

  test("an argv the rules deny is refused with the rule, since the deny comes before any grant", async () => {
    const tree = awsTree();
    expectUsageError(
      await runCli(["grant", "add", "aws", "--exact", "--", "ec2", "terminate-instances", "--instance-ids", "i-1"], tree.env),
      /refused: denied by .*ec2 terminate-instances.*; the server denies this call before it looks at grants/u,
    );
    expect(existsSync(tree.grants)).toBe(false);
  });

  test("an argv holding a character that does not show on screen gets no grant, exact or prefix", async () => {
    const tree = awsTree();
    for (const mode of [["--exact"], ["--prefix", "2"]]) {
      expectUsageError(await runCli(["grant", "add", "aws", ...mode, "--", "s3", "ls", "s3://bucket\u200b"], tree.env), "do not show on screen");
    }
    expect(existsSync(tree.grants)).toBe(false);
  });
});
