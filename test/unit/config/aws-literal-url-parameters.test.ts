/**
 * The generated list of AWS CLI parameters whose http(s):// values the CLI
 * passes on literally (providers/aws/provider.yaml `argv.fetched_values`), as
 * the config layer reads it, checked against the installed CLI's own handler.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { toGrammarSpec } from "../../../src/config/provider-schema.js";
import type { LiteralUrlParameter } from "../../../src/policy/grammar/types.js";
import { bundledProviderConfig } from "../../support/policy-helpers.js";
import { testPython } from "../../support/test-python.js";

const oracle = fileURLToPath(new URL("../../support/awscli_url_oracle.py", import.meta.url));
const spec = toGrammarSpec(bundledProviderConfig("aws"));
const literal = spec.fetchedValues?.literal ?? [];
const key = (row: Pick<LiteralUrlParameter, "command" | "option">): string => `${row.command.join(" ")} ${row.option}`;

/** Runs the oracle (the installed awscli) on rows; one answer per row. */
function askAwscli(rows: readonly Pick<LiteralUrlParameter, "command" | "option">[]): string[] {
  // .ci/run exports TORII_TEST_PYTHON: a python3 that can import awscli.
  const run = spawnSync(testPython(), [oracle], { input: JSON.stringify(rows), encoding: "utf8", shell: false });
  if (run.status !== 0) throw new Error(`awscli oracle failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

describe("providers/aws/provider.yaml fetched_values", () => {
  test("every value is fetched (AWS CLI v1), with a generated list of literal parameters", () => {
    expect(spec.fetchedValues?.urlOptions).toEqual(["*"]);
    expect(literal.length).toBeGreaterThanOrEqual(60);
    expect(new Set(literal.map(key)).size).toBe(literal.length);
  });

  test("it holds the parameters the CLI exempts, matched by endpoint prefix as the CLI matches them", () => {
    const keys = new Set(literal.map(key));
    for (const expected of [
      "sqs receive-message --queue-url",
      "sqs get-queue-attributes --queue-url",
      "cloudformation validate-template --template-url",
      "cloudformation deploy --template-file", // custom.deploy.template-file
      "s3 cp --website-redirect", // custom.cp.website-redirect
      "docdb copy-db-cluster-snapshot --pre-signed-url", // rds.* matches every service with endpoint prefix rds
      "neptune create-db-cluster --pre-signed-url",
      "cloudfront sign --url", // no_paramfile
    ]) {
      expect(keys, expected).toContain(expected);
    }
    expect(literal.find((row) => key(row) === "comprehend batch-detect-entities --text-list")?.list).toBe(true);
    expect(literal.find((row) => key(row) === "sqs receive-message --queue-url")?.list).toBe(false);
  });

  test("entries of PARAMFILE_DISABLED that match no endpoint prefix are not literal: the CLI downloads those values", () => {
    const keys = new Set(literal.map(key));
    for (const fetched of [
      "apigateway put-integration --uri", // listed as api-gateway.*, endpoint prefix apigateway
      "ses put-account-details --website-url", // listed as ses.*, endpoint prefix email
      "sagemaker create-notebook-instance --default-code-repository", // endpoint prefix api.sagemaker
      "emr create-studio --idp-auth-url", // endpoint prefix elasticmapreduce
    ]) {
      expect(keys, fetched).not.toContain(fetched);
    }
  });

  test("the installed AWS CLI passes every listed parameter on literally, and loads the others", () => {
    const controls = [
      { command: ["ec2", "describe-instances"], option: "--instance-ids" },
      { command: ["apigateway", "put-integration"], option: "--uri" },
      { command: ["s3", "ls"], option: "--paths" },
    ];
    const answers = askAwscli([...literal, ...controls]);
    const misfits = literal.filter((_, i) => answers[i] !== "literal").map(key);
    expect(misfits).toEqual([]);
    expect(answers.slice(literal.length)).toEqual(["loaded", "loaded", "loaded"]);
  });
});
