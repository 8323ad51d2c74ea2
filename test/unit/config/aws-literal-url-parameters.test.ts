/**
 * The generated list of AWS CLI parameters whose http(s):// values the CLI
 * passes on literally (providers/aws/provider.yaml `argv.fetched_values`), as
 * the config layer reads it (test/real-cli/aws-literal-url-oracle.test.ts checks it
 * against the installed CLI's own handler).
 */
import { describe, expect, test } from "vitest";
import { toGrammarSpec } from "../../../src/config/provider-schema.js";
import type { LiteralUrlParameter } from "../../../src/policy/grammar/types.js";
import { bundledProviderConfig } from "../../support/policy-helpers.js";

const spec = toGrammarSpec(bundledProviderConfig("aws"));
const literal = spec.fetchedValues?.literal ?? [];
const key = (row: Pick<LiteralUrlParameter, "command" | "option">): string => `${row.command.join(" ")} ${row.option}`;

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
});
