/**
 * The exact rule's text form (src/policy/exact-pattern.ts) is read back only
 * in the form it is written, and an exact rule for a call that writes a local
 * file (file-writes.ts) accepts that call: the approval page's Always allow
 * works for it, while any other regex still does not.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { exactPattern, exactRuleTexts } from "../../../src/policy/exact-pattern.js";
import { exactAcceptRule } from "../../../src/policy/exact-rule.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

describe("exactRuleTexts", () => {
  it("reads back every text exactPattern writes, pattern syntax included", () => {
    const text = fc.string({
      minLength: 1,
      maxLength: 20,
      unit: fc.constantFrom("a", " ", "\\", "^", "$", ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "/", "-"),
    });
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), (texts) => {
        expect(exactRuleTexts(exactPattern(texts))).toEqual(texts);
      }),
    );
  });

  it("reads no other rule: literals, flags, classes, quantifiers, bare alternation, unescaped syntax", () => {
    for (const rule of [
      "get pods",
      "/^get pods$/i",
      "/^get .*$/",
      "/^get [a-z]+$/",
      "/^a|b$/",
      "/^get pods/",
      "/get pods$/",
      "/^(?:a|.)$/",
      "/^get\\dpods$/",
      "/^$/",
    ]) {
      expect(exactRuleTexts(rule), rule).toBeUndefined();
    }
  });
});

describe("an exact rule names the file-writing call it was made for", () => {
  const aws = bundledPolicyContext("aws");
  const call = ["iot-data", "get-thing-shadow", "--thing-name", "t", "out.json"];
  const decide = (accept: string, argv: readonly string[]) => evaluatePolicy(compilePolicy(aws, { shared: ruleList([], [accept]) }), argv).decision.result;

  it("accepts exactly that call, not the same command writing elsewhere", () => {
    const offered = exactAcceptRule(compilePolicy(aws, { shared: ruleList() }), call);
    if (!("rule" in offered)) throw new Error(offered.reason);
    expect(decide(offered.rule, call)).toBe("accept");
    expect(decide(offered.rule, [...call.slice(0, -1), "/root/.aws-old/credentials"])).toBe("unresolved");
  });

  it("a broad regex over the same command still does not accept it", () => {
    expect(decide("/^iot-data get-thing-shadow .*$/", call)).toBe("unresolved");
  });
});

describe("an exact rule matches only calls whose tokens it can delimit", () => {
  const aws = bundledPolicyContext("aws");
  const call = ["s3api", "get-object", "--bucket", "b", "--key", "k", "out.json"];
  const decide = (accept: string, argv: readonly string[]) => evaluatePolicy(compilePolicy(aws, { shared: ruleList([], [accept]) }), argv).decision.result;

  it("the same text split into other tokens (a space inside a token) is not the approved call", () => {
    const offered = exactAcceptRule(compilePolicy(aws, { shared: ruleList() }), call);
    if (!("rule" in offered)) throw new Error(offered.reason);
    expect(decide(offered.rule, call)).toBe("accept");
    expect(decide(offered.rule, ["s3api", "get-object", "--bucket", "b --key", "k", "out.json"])).not.toBe("accept");
    expect(decide(offered.rule, ["s3api", "get-object", "--bucket", "b", "--key", "k out.json"])).not.toBe("accept");
  });

  it("a regex with pattern syntax keeps matching the joined text; one without any is read as exact", () => {
    expect(decide("/^s3api list-objects --bucket a.b$/", ["s3api", "list-objects", "--bucket", "a b"])).toBe("accept");
    expect(decide("/^s3api list-objects --bucket a b$/", ["s3api", "list-objects", "--bucket", "a b"])).toBe("unresolved");
    expect(decide("/^s3api list-objects --bucket a b$/", ["s3api", "list-objects", "--bucket", "a", "b"])).toBe("accept");
  });
});
