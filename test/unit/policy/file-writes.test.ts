/**
 * Calls that make the CLI write a local file (`argv.file_writes`): a broad accept
 * rule (a regex, a shorter literal) never accepts them; a rule that names the
 * command path does. Deny rules and the other decisions are unchanged.
 */
import { describe, expect, it } from "vitest";
import { toGrammarSpec } from "../../../src/config/provider-schema.js";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { GrammarSpec } from "../../../src/policy/grammar/types.js";
import { AWS_LOCKED, awsSpec, context } from "../../support/grammars.js";
import { bundledProviderConfig, ruleList } from "../../support/policy-helpers.js";

const writing: GrammarSpec = {
  ...awsSpec,
  fileWrites: [
    { command: ["iot-data", "get-thing-shadow"], operand: "outfile" },
    { command: ["iot", "create-keys-and-certificate"], option: "--private-key-outfile" },
  ],
};

function decide(accept: readonly string[], argv: readonly string[], deny: readonly string[] = [], spec: GrammarSpec = writing) {
  return evaluatePolicy(compilePolicy(context("aws", spec, AWS_LOCKED), { shared: ruleList(deny, accept) }), argv).decision;
}

const SHADOW = ["iot-data", "get-thing-shadow", "--thing-name", "t", "/home/op/.aws-old/credentials"];
const KEYS = ["iot", "create-keys-and-certificate", "--set-as-active"];

describe("calls that write a local file", () => {
  it("a regex accept rule does not accept a positional-outfile operation; the reason says why and quotes no path", () => {
    const decision = decide(["/^[a-z0-9-]+ (describe|list|get)-[a-z0-9-]+( |$)/"], SHADOW);
    expect(decision.result).toBe("unresolved");
    expect(decision.reason).toContain(
      'iot-data get-thing-shadow can write a local file at the path given by its outfile operand; only an accept rule that names "iot-data get-thing-shadow"',
    );
    expect(decision.reason).not.toContain("credentials");
  });

  it("a literal rule shorter than the command path does not accept it; one naming the path does", () => {
    expect(decide(["iot-data"], SHADOW).result).toBe("unresolved");
    expect(decide(["iot-data get-thing-shadow"], SHADOW)).toMatchObject({ result: "accept", rule: { text: "iot-data get-thing-shadow" } });
    expect(decide(["iot-data get-thing-shadow --thing-name t"], SHADOW).result).toBe("accept");
    // Among several matching rules, the naming one decides.
    expect(decide(["/^iot-data /", "iot-data get-thing-shadow"], SHADOW)).toMatchObject({ result: "accept", rule: { text: "iot-data get-thing-shadow" } });
  });

  it("without the table the same broad rule accepts the call (the table is what closes it)", () => {
    expect(decide(["/^[a-z0-9-]+ get-/"], SHADOW, [], awsSpec).result).toBe("accept");
  });

  it("an option that writes counts in any spelling the CLI accepts: full, with =, abbreviated", () => {
    for (const option of ["--private-key-outfile", "--private-key-outfile=/x", "--private-key-out"]) {
      expect(decide(["iot"], [...KEYS, option, "/x"]).result, option).toBe("unresolved");
    }
    expect(decide(["iot"], KEYS).result).toBe("accept");
    expect(decide(["iot create-keys-and-certificate"], [...KEYS, "--private-key-outfile", "/x"]).result).toBe("accept");
  });

  it("deny rules still decide first", () => {
    expect(decide(["iot-data get-thing-shadow"], SHADOW, ["iot-data"])).toMatchObject({ result: "deny", source: "explicit-deny" });
  });

  it("the bundled aws provider lists the streaming operations the red team used, and its own outfile options", () => {
    const spec = toGrammarSpec(bundledProviderConfig("aws"));
    const rows = (spec.fileWrites ?? []).map((row) => `${row.command.join(" ")} ${row.operand ?? row.option ?? ""}`);
    for (const expected of [
      "iot-data get-thing-shadow outfile",
      "apigateway get-export outfile",
      "apigateway get-sdk outfile",
      "appconfig get-configuration outfile",
      "cloudfront get-function outfile",
      "s3api get-object outfile",
      "s3api select-object-content outfile",
      "lambda invoke outfile",
      "iot create-keys-and-certificate --private-key-outfile",
      "iam create-virtual-mfa-device --outfile",
      "gamelift get-game-session-log --save-as",
      "cloudformation package --output-template-file",
      "eks update-kubeconfig --kubeconfig",
      "s3 cp paths",
      "s3 sync paths",
    ]) {
      expect(rows).toContain(expected);
    }
  });
});
