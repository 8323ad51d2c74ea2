/**
 * The generated list of AWS CLI parameters whose http(s):// values the CLI passes on
 * literally (providers/aws/provider.yaml `argv.fetched_values`, read by
 * test/unit/config/aws-literal-url-parameters.test.ts), checked against the installed
 * CLI's own handler.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { toGrammarSpec } from "../../src/config/provider-schema.js";
import type { LiteralUrlParameter } from "../../src/policy/grammar/types.js";
import { bundledProviderConfig } from "../support/policy-helpers.js";
import { testPython } from "../support/test-python.js";

const oracle = fileURLToPath(new URL("../support/awscli_url_oracle.py", import.meta.url));
const literal = toGrammarSpec(bundledProviderConfig("aws")).fetchedValues?.literal ?? [];
const key = (row: Pick<LiteralUrlParameter, "command" | "option">): string => `${row.command.join(" ")} ${row.option}`;

/** Runs the oracle (the installed awscli) on rows; one answer per row. */
function askAwscli(rows: readonly Pick<LiteralUrlParameter, "command" | "option">[]): string[] {
  // .ci/run exports TORII_TEST_PYTHON: a python3 that can import awscli.
  const run = spawnSync(testPython(), [oracle], { input: JSON.stringify(rows), encoding: "utf8", shell: false });
  if (run.status !== 0) throw new Error(`awscli oracle failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as string[];
}

describe("providers/aws/provider.yaml fetched_values against the installed AWS CLI", () => {
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
