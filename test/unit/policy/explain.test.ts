/**
 * explain (torii_policy, `torii policy check`) and effectivePolicy: docs/policy.md "explain".
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { effectivePolicyOf, explainWith } from "../../../src/policy/explain.js";
import { suggestGrants } from "../../../src/policy/grant-suggestion.js";
import { AWS_LOCKED, awsSpec, context, KUBECTL_LOCKED, kubectlSpec, plainSpec } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";
import type { LayeredRuleSpecs, ProviderPolicyContext } from "../../../src/policy/types.js";

const explain = (ctx: ProviderPolicyContext, rules: LayeredRuleSpecs, argv: readonly string[], target?: string) =>
  explainWith(compilePolicy(ctx, rules), argv, target);
const effectivePolicy = (ctx: ProviderPolicyContext, rules: LayeredRuleSpecs, target?: string) => effectivePolicyOf(compilePolicy(ctx, rules), target);

const kctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED);
const actx = context("aws", awsSpec, AWS_LOCKED);

describe("explain: decisions", () => {
  it("an accepted call names the deciding rule and the canonical argv, and suggests no grant", () => {
    const result = explain(kctx, { shared: ruleList([], ["get pods"]) }, ["get", "pods", "-nx"]);
    expect(result).toMatchObject({ tool: "kubectl", decision: "accept", source: "rules", canonical_argv: ["get", "pods", "--namespace=x"] });
    expect(result.rule).toEqual({ text: "get pods", list: "accept", layer: "shared", origin: "shared.accept:1" });
    expect(result.grants).toBeUndefined();
    expect(result.reason).toContain('"get pods"');
  });

  it("a denied call suggests no grant", () => {
    const result = explain(kctx, { shared: ruleList(["get"]) }, ["get", "pods"]);
    expect(result).toMatchObject({ decision: "deny", source: "explicit-deny" });
    expect(result.grants).toBeUndefined();
  });

  it("a rejected argv has no canonical argv, no rule and no grant", () => {
    const result = explain(kctx, { shared: ruleList([], ["get"]) }, ["get", "--context=prod"]);
    expect(result).toMatchObject({ decision: "deny", source: "locked-option" });
    expect(result.canonical_argv).toBeUndefined();
    expect(result.rule).toBeUndefined();
    expect(result.grants).toBeUndefined();
  });

  it("the target is named in the result only when given", () => {
    expect(explain(kctx, { shared: ruleList() }, ["get"], "prod").target).toBe("prod");
    expect("target" in explain(kctx, { shared: ruleList() }, ["get"])).toBe(false);
  });

  it("explain is pure: the same inputs give the same explanation", () => {
    const rules = { shared: ruleList(["delete"], ["get"]) };
    expect(explain(kctx, rules, ["logs", "x"], "t")).toEqual(explain(kctx, rules, ["logs", "x"], "t"));
  });
});

describe("explain: grant suggestions for an unresolved call", () => {
  it("exact is the canonical argv; prefix is the command path", () => {
    const result = explain(kctx, { shared: ruleList() }, ["-n", "x", "get", "pods", "web-1", "-o", "json"]);
    expect(result.decision).toBe("unresolved");
    expect(result.grants?.exact).toEqual({
      mode: "exact",
      token_count: 5,
      tokens: ["get", "pods", "web-1", "--namespace=x", "--output=json"],
      covers: "exactly this canonical argv: no token added, removed or changed",
      command: "torii grant add kubectl --exact -- get pods web-1 --namespace=x --output=json",
    });
    expect(result.grants?.prefix).toEqual({
      mode: "prefix",
      token_count: 3,
      tokens: ["get", "pods", "web-1"],
      covers: "every argv whose first 3 canonical tokens are these, whatever follows them (more arguments, options, a -- tail)",
      command: "torii grant add kubectl --prefix 3 -- get pods web-1",
    });
  });

  it("the grant command names the target when there is one", () => {
    const result = explain(kctx, { shared: ruleList() }, ["get", "pods"], "prod");
    expect(result.grants?.exact.command).toBe("torii grant add kubectl prod --exact -- get pods");
    expect(result.grants?.prefix.command).toBe("torii grant add kubectl prod --prefix 2 -- get pods");
  });

  it("for argparse the prefix ends before the operation's own options kept in the body", () => {
    const result = explain(actx, { shared: ruleList() }, ["ec2", "describe-instances", "--instance-ids", "i-1", "--output", "json"]);
    expect(result.grants?.exact.tokens).toEqual(["ec2", "describe-instances", "--instance-ids", "i-1", "--output=json"]);
    expect(result.grants?.prefix.tokens).toEqual(["ec2", "describe-instances"]);
    expect(result.grants?.prefix.command).toBe("torii grant add aws --prefix 2 -- ec2 describe-instances");
  });

  it("for plain the prefix ends before the first option; - alone is an operand", () => {
    const result = explain(context("tf", plainSpec), { shared: ruleList() }, ["state", "show", "-", "-no-color", "x"]);
    expect(result.grants?.prefix.tokens).toEqual(["state", "show", "-"]);
  });

  it("the prefix is never empty, even when the argv starts with an option", () => {
    const result = explain(actx, { shared: ruleList() }, ["--debug"]);
    expect(result.grants?.prefix).toMatchObject({ token_count: 1, tokens: ["--debug"] });
  });

  it("the tail is part of the exact grant, not of the prefix", () => {
    const result = explain(kctx, { shared: ruleList() }, ["exec", "web", "--", "sh", "-c", "ls"]);
    expect(result.grants?.exact.tokens).toEqual(["exec", "web", "--", "sh", "-c", "ls"]);
    expect(result.grants?.prefix.tokens).toEqual(["exec", "web"]);
  });

  it("tokens unsafe for a shell are single-quoted in the command text, not in the tokens", () => {
    const { exact } = suggestGrants("kubectl", undefined, {
      positionals: ["get", "it's here", "a;b", "$(x)"],
      options: ["--selector=app=web"],
      hasTail: false,
      tail: [],
    });
    expect(exact.tokens).toEqual(["get", "it's here", "a;b", "$(x)", "--selector=app=web"]);
    expect(exact.command).toBe(`torii grant add kubectl --exact -- get 'it'\\''s here' 'a;b' '$(x)' --selector=app=web`);
  });
});

describe("effectivePolicy", () => {
  it("lists the shared deny floor plus the target's, the accepts in force and the ignored accepts", () => {
    const ctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED, { minimumAcceptTokens: 2 });
    const effective = effectivePolicy(
      ctx,
      { shared: ruleList(["delete"], ["get", "logs x"]), target: ruleList(["get secrets"], ["get pods", "get"], "target") },
      "prod",
    );
    expect(effective).toEqual({
      tool: "kubectl",
      target: "prod",
      minimum_accept_tokens: 2,
      deny: ["delete", "get secrets"],
      accept: ["get pods"],
      ignored_accept: ["get"],
      unmatched: "unresolved: a grant or the operator's approval decides; without either the call is denied",
      errors: [],
    });
  });

  it("shows the shared accepts when the target has no rules file, and no target key without a target", () => {
    const effective = effectivePolicy(kctx, { shared: ruleList([], ["get"]) });
    expect(effective.accept).toEqual(["get"]);
    expect("target" in effective).toBe(false);
  });

  it("reports every rule that failed to compile with its origin and message", () => {
    const effective = effectivePolicy(kctx, { shared: ruleList(["/(/"], ["/x/g"]) });
    expect(effective.errors).toEqual([
      { rule: "/(/", origin: "shared.deny:1", message: expect.stringMatching(/^invalid regular expression/u) as unknown },
      { rule: "/x/g", origin: "shared.accept:1", message: 'flag "g" is not allowed; use only i, m, s and x' },
    ]);
    expect(effective.deny).toEqual([]);
    expect(effective.accept).toEqual([]);
  });
});
