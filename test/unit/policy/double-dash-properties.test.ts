/**
 * One reading of a call (red team 8, finding 1): a `--` the CLI treats as
 * nothing must not change any check's answer.
 *
 *   P9a aws: the AWS CLI drops every `--` (before the service, after it, after
 *       the operation, repeated; checked against aws-cli 1.45). A call with `--`
 *       inserted anywhere canonicalises to the `--`-free call, so rules, file
 *       writes, parameter carriers, forbidden abbreviations, the locked floor,
 *       grants (the tokens they match) and suggestions all decide alike.
 *   P9b CLIs whose `--` ends the options (kubectl, az): the tokens after it are
 *       still read as body by the body checks, so a `--` spelling is never
 *       looser than the `--`-free one: never accepted when that is not, and a
 *       file write it makes is held alike.
 *   P9c aws: the service parser takes the first word that is not an option as
 *       the operation and hands the options before it on (`ec2 --user-data=x
 *       run-instances` sends UserData): deny rules and file writes read the
 *       command path from those words, so moving options there is never looser.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy, type CompiledPolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { suggestGrants } from "../../../src/policy/grant-suggestion.js";
import type { PolicyEvaluation } from "../../../src/policy/types.js";
import { bundledPolicyContext, ruleList, withSettings } from "../../support/policy-helpers.js";

const SEED = 20261130;
const params = (offset: number): fc.Parameters<unknown> => ({ seed: SEED + offset, numRuns: 500 });

const CREDENTIALS = "/home/op/.aws-old/credentials";
/** The global options in the calls below that take a value. */
const GLOBAL_WITH_VALUE = new Set(["--output", "--profile"]);

/** What every check concluded about a call, as the pipeline consumes it. */
function outcome(policy: CompiledPolicy, evaluation: PolicyEvaluation): unknown {
  const { decision, canonical, canonicalTokens } = evaluation;
  const hold = decision.result === "unresolved" ? decision.fileWrite : undefined;
  return {
    result: decision.result,
    source: decision.source,
    rule: "rule" in decision ? decision.rule.text : null,
    hold: hold ?? null,
    tokens: canonicalTokens ?? null,
    grants: decision.result === "unresolved" && canonical !== undefined ? suggestGrants(policy.context.tool, undefined, canonical, hold?.minimumPrefix) : null,
  };
}

/** `argv` with `--` inserted before the given indices (an index may repeat: `-- --`). */
function withDashes(argv: readonly string[], at: readonly number[]): string[] {
  const out: string[] = [];
  for (let i = 0; i <= argv.length; i += 1) {
    for (const index of at) if (index === i) out.push("--");
    if (i < argv.length) out.push(argv[i] as string);
  }
  return out;
}

const dashPositions = (length: number): fc.Arbitrary<number[]> => fc.array(fc.integer({ min: 0, max: length }), { minLength: 1, maxLength: 3 });

describe("P9a aws: a dropped -- changes no check", () => {
  const context = withSettings(bundledPolicyContext("aws"), { forbiddenArgs: ["--user-data"], parameterCarriers: ["--cli-input-json", "--cli-input-yaml"] });
  const policy = compilePolicy(context, {
    shared: ruleList(["ec2 run-instances --image-id", "emr"], ["iot-data", "ec2", "s3", "/^s3api get-/", "sts"]),
  });
  const CALLS: readonly (readonly string[])[] = [
    ["iot-data", "get-thing-shadow", "--thing-name", "t", CREDENTIALS],
    ["ec2", "run-instances", "--cli-input-json", '{"UserData":"x"}'],
    ["ec2", "run-instances", "--user-da", "x"],
    ["ec2", "run-instances", "--image-id", "ami-1"],
    ["ec2", "describe-regions", "--output", "text"],
    ["s3", "cp", "s3://b/k", "/home/op/.aws-old/config"],
    ["s3api", "get-object", "--bucket", "b", "--key", "k", CREDENTIALS],
    ["emr", "create-default-roles", "--iam-endpoint", "http://127.0.0.1:1"],
    ["sts", "get-caller-identity", "--profile", "prod"],
    ["configure", "set", "region", "x"],
  ];

  it("every check decides a call with -- inserted anywhere exactly as the call without it", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CALLS).chain((call) => fc.tuple(fc.constant(call), dashPositions(call.length))),
        ([call, at]) => {
          // Between a global option and its value the CLI does not drop `--`: it fails (`--output -- text`).
          if (at.some((index) => GLOBAL_WITH_VALUE.has(call[index - 1] ?? ""))) return;
          const spelled = withDashes(call, at);
          expect(outcome(policy, evaluatePolicy(policy, spelled)), spelled.join(" ")).toEqual(outcome(policy, evaluatePolicy(policy, call)));
        },
      ),
      params(1),
    );
  });

  it("the red team's calls: the -- spelling is held or denied like the plain one", () => {
    expect(evaluatePolicy(policy, ["iot-data", "--", "get-thing-shadow", "--thing-name", "t", CREDENTIALS]).decision).toMatchObject({
      result: "unresolved",
      fileWrite: { command: ["iot-data", "get-thing-shadow"], minimumPrefix: 2 },
    });
    expect(evaluatePolicy(policy, ["ec2", "--", "run-instances", "--cli-input-json", "{}"]).decision).toMatchObject({ result: "deny" });
    expect(evaluatePolicy(policy, ["s3", "--", "cp", "s3://b/k", "/home/op/.aws-old/config"]).decision.result).toBe("unresolved");
  });
});

/** deny < unresolved < accept: how much a decision lets through. */
const LOOSENESS = { deny: 0, unresolved: 1, accept: 2 } as const;

describe("P9c aws: an operation's options before the operation name", () => {
  const context = withSettings(bundledPolicyContext("aws"), { parameterCarriers: ["--cli-input-json", "--cli-input-yaml"] });
  const policy = compilePolicy(context, { shared: ruleList(["ec2 run-instances --user-data"], ["iot-data", "ec2", "s3", "/^s3api get-/"]) });
  const CALLS: readonly (readonly string[])[] = [
    ["iot-data", "get-thing-shadow", "--thing-name=t", CREDENTIALS],
    ["ec2", "run-instances", "--image-id=ami-1", "--user-data=x"],
    ["ec2", "run-instances", "--cli-input-json={}", "--dry-run"],
    ["s3", "cp", "--recursive", "s3://b/k", "/home/op/.aws-old/config"],
    ["s3api", "get-object", "--bucket=b", "--key=k", CREDENTIALS],
  ];

  it("options moved (in the = form) before the operation name, where the CLI still reads them, are never looser", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CALLS).chain((call) =>
          fc.tuple(
            fc.constant(call),
            fc.subarray(
              call.slice(2).filter((token) => token.startsWith("--")),
              { minLength: 1 },
            ),
          ),
        ),
        ([call, moved]) => {
          const spelled = [call[0] as string, ...moved, ...call.slice(1).filter((token) => !moved.includes(token))];
          const plain = evaluatePolicy(policy, call).decision;
          const dashed = evaluatePolicy(policy, spelled).decision;
          expect(LOOSENESS[dashed.result], `${spelled.join(" ")}: ${dashed.reason}`).toBeLessThanOrEqual(LOOSENESS[plain.result]);
        },
      ),
      params(4),
    );
  });

  it("the deny of an operation option and a file write are read before the operation name", () => {
    expect(evaluatePolicy(policy, ["ec2", "--user-data=x", "run-instances"]).decision).toMatchObject({ result: "deny", source: "explicit-deny" });
    expect(evaluatePolicy(policy, ["ec2", "--cli-input-json={}", "run-instances"]).decision).toMatchObject({ result: "deny", source: "explicit-deny" });
    expect(evaluatePolicy(policy, ["iot-data", "--thing-name=t", "get-thing-shadow", CREDENTIALS]).decision).toMatchObject({
      result: "unresolved",
      fileWrite: { command: ["iot-data", "get-thing-shadow"], minimumPrefix: 3 },
    });
  });
});

describe("P9b a -- that ends the options is never looser", () => {
  const cases = [
    {
      name: "kubectl",
      context: withSettings(
        {
          ...bundledPolicyContext("kubectl"),
          grammar: { ...bundledPolicyContext("kubectl").grammar, fileWrites: [{ command: ["cp"], operand: "dest" }] },
        },
        { forbiddenArgs: ["--raw"] },
      ),
      deny: ["get secrets", "delete"],
      accept: ["get", "cp", "describe pods", "logs"],
      paths: [["get"], ["cp"], ["describe", "pods"], ["logs"], ["delete"]],
      words: ["get", "secrets", "pods", "cp", "pod:/x", "/home/op/.kube-old/config", "describe", "logs", "delete", "-n", "default", "--raw", "x"],
    },
    {
      name: "az",
      context: withSettings(
        {
          ...bundledPolicyContext("az"),
          grammar: { ...bundledPolicyContext("az").grammar, fileWrites: [{ command: ["storage", "blob", "download"], option: "--file" }] },
        },
        { forbiddenArgs: ["--yes"], parameterCarriers: ["--parameters-json"] },
      ),
      deny: ["vm delete", "group delete --name prod"],
      accept: ["storage", "vm", "group"],
      paths: [
        ["storage", "blob", "download"],
        ["vm", "delete"],
        ["vm", "create"],
        ["group", "delete"],
        ["group", "show"],
      ],
      words: ["storage", "blob", "download", "--file", "/home/op/.azure-old/config", "vm", "delete", "group", "--name", "prod", "--ye", "--parameters-js", "x"],
    },
  ] as const;

  for (const [offset, { name, context, deny, accept, paths, words }] of cases.entries()) {
    it(`${name}: with -- inserted, never accepted where the plain call is not, and a held write stays held`, () => {
      const policy = compilePolicy(context, { shared: ruleList([...deny], [...accept]) });
      fc.assert(
        fc.property(
          fc
            .tuple(fc.constantFrom(...paths), fc.array(fc.constantFrom(...words), { maxLength: 5 }))
            .map(([path, rest]) => [...path, ...rest])
            .chain((call) => fc.tuple(fc.constant(call), dashPositions(call.length))),
          ([call, at]) => {
            const plainEvaluation = evaluatePolicy(policy, call);
            // A call the grammar refuses (`-n` without its value) is malformed for the CLI too: nothing to compare.
            if (plainEvaluation.canonical === undefined) return;
            const plain = plainEvaluation.decision;
            const spelled = withDashes(call, at.slice(0, 1));
            const dashed = evaluatePolicy(policy, spelled).decision;
            expect(LOOSENESS[dashed.result], `${spelled.join(" ")}: ${dashed.reason}`).toBeLessThanOrEqual(LOOSENESS[plain.result]);
            if (plain.result === "unresolved" && plain.fileWrite !== undefined && dashed.result === "unresolved") {
              expect(dashed.fileWrite?.minimumPrefix ?? Infinity).toBeGreaterThanOrEqual(plain.fileWrite.minimumPrefix);
            }
          },
        ),
        params(2 + offset),
      );
    });
  }
});
