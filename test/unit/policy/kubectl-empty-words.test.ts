/**
 * cobra skips empty strings when it finds the command path (`kubectl create ""
 * secret generic x` runs `create secret generic`, `kubectl "" delete pod x`
 * runs `delete`: checked with the real kubectl against a 127.0.0.1 server that
 * refuses, each reaching API discovery). An agent's empty word is refused, so
 * no rule is matched against words that are not the command that runs.
 */
import { describe, expect, test } from "vitest";
import { compilePolicy, grammarFor } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { bundledPolicyContext, canon, rejectionOf, ruleList } from "../../support/policy-helpers.js";

const context = bundledPolicyContext("kubectl");
const grammar = grammarFor(context);
const policy = compilePolicy(context, { shared: ruleList(["create secret", "delete"], ["create", "get", "/.*/"]) });

describe("kubectl: an empty word in the agent's argv", () => {
  test.each([[["", "delete", "pod", "x"]], [["create", "", "secret", "generic", "x"]], [["get", "", "pods"]], [["-n", "dev", "", "delete", "pod", "x"]]])(
    "%j is refused before any rule",
    (argv) => {
      expect(rejectionOf(grammar, argv)).toMatchObject({ kind: "argv-rejected" });
      const { decision } = evaluatePolicy(policy, argv);
      expect(decision.result).toBe("deny");
      expect(decision.reason).toMatch(/is empty: the CLI skips it/u);
    },
  );

  test("after --, where cobra no longer looks for the command, an empty word is an argument; deny rules read the tail without it", () => {
    expect(evaluatePolicy(policy, ["exec", "web-1", "--", "grep", "", "/etc/hosts"]).decision.result).toBe("accept");
    expect(evaluatePolicy(policy, ["create", "--", "", "secret", "generic", "x"]).decision).toMatchObject({ result: "deny", source: "explicit-deny" });
  });

  test("an empty option value is a value, not a word: it is kept", () => {
    expect(canon(grammar, ["get", "pods", "-l", ""])).toContain("--selector=");
    expect(evaluatePolicy(policy, ["get", "pods", "--selector="]).decision.result).toBe("accept");
  });
});
