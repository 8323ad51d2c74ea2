/**
 * Jasper, the decision procedure: docs/policy.md "Order of evaluation".
 */
import { describe, expect, it } from "vitest";
import { compilePolicy, type CompiledPolicy, type RegexRule } from "../../../src/policy/compile.js";
import { evaluatePolicy, findMatch, literalMatches, normaliseForEvaluation } from "../../../src/policy/evaluate.js";
import type { CanonicalArgv } from "../../../src/policy/grammar/types.js";
import type { LayeredRuleSpecs, ProviderPolicyContext } from "../../../src/policy/types.js";
import { awsSpec, context, KUBECTL_LOCKED, kubectlSpec } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";

const kctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED);

function decide(ctx: ProviderPolicyContext, rules: LayeredRuleSpecs, argv: readonly string[]) {
  return evaluatePolicy(compilePolicy(ctx, rules), argv);
}

const argv = (positionals: string[], options: string[] = [], tail?: string[]): CanonicalArgv => ({
  positionals,
  options,
  hasTail: tail !== undefined,
  tail: tail ?? [],
});

describe("order of evaluation", () => {
  it("a locked option is a deny naming the option, with no canonical argv", () => {
    const result = decide(kctx, { shared: ruleList([], ["get"]) }, ["get", "-s", "https://evil"]);
    expect(result.decision).toMatchObject({ result: "deny", source: "locked-option", option: "--server" });
    expect(result.canonical).toBeUndefined();
    expect(result.canonicalTokens).toBeUndefined();
  });

  it("a forbidden value and an unparseable argv are denies with their own sources", () => {
    const aws = context("aws", awsSpec);
    expect(decide(aws, { shared: ruleList([], ["s3"]) }, ["s3", "cp", "fileb://x", "s3://b"]).decision.source).toBe("forbidden-value");
    expect(decide(kctx, { shared: ruleList([], ["get"]) }, ["get", "--bogus"]).decision.source).toBe("argv-rejected");
  });

  it("a policy with an invalid rule denies every parseable call, naming the count and the first bad rule", () => {
    const result = decide(kctx, { shared: ruleList(["/(/"], ["get", "/[/"]) }, ["get", "pods"]);
    expect(result.decision.result).toBe("deny");
    expect(result.decision.source).toBe("policy-error");
    expect(result.decision.reason).toContain("2 invalid rule(s)");
    expect(result.decision.reason).toMatch(/: the deny rule at shared\.deny:1 \(shared\): invalid regular expression: Unterminated group$/u);
    expect(result.canonicalTokens).toEqual(["get", "pods"]);
  });

  it("the deny reason of a policy with an invalid rule names the rule by place, never its text (option values)", () => {
    const result = decide(kctx, { shared: ruleList(["/get --token=hunter2SECRET (/"], ["get"]) }, ["get", "pods"]);
    expect(result.decision.source).toBe("policy-error");
    expect(result.decision.reason).not.toContain("hunter2SECRET");
  });

  it("forbidden_args come before deny and accept rules", () => {
    const ctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED, { forbiddenArgs: ["--watch"] });
    const result = decide(ctx, { shared: ruleList(["get"], ["get"]) }, ["get", "pods", "-w"]);
    expect(result.decision).toMatchObject({ result: "deny", source: "forbidden-arg", forbidden: "--watch" });
  });

  it("a deny rule ends evaluation before any accept", () => {
    const result = decide(kctx, { shared: ruleList(["get secrets"], ["get secrets db", "/secrets/"]) }, ["get", "secrets", "db"]);
    expect(result.decision).toMatchObject({ result: "deny", source: "explicit-deny", rule: { text: "get secrets", list: "deny" } });
  });

  it("an accept rule gives accept naming the rule; nothing matched is unresolved, never accept", () => {
    expect(decide(kctx, { shared: ruleList([], ["get"]) }, ["get", "pods"]).decision).toMatchObject({
      result: "accept",
      source: "rules",
      rule: { text: "get", list: "accept", layer: "shared", origin: "shared.accept:1" },
    });
    expect(decide(kctx, { shared: ruleList([], ["logs"]) }, ["get", "pods"]).decision).toMatchObject({ result: "unresolved", source: "no-rule" });
  });

  it("an accepted call carries its canonical argv, structured and flattened", () => {
    const result = decide(kctx, { shared: ruleList([], ["get"]) }, ["-nx", "get", "pods", "--", "a"]);
    expect(result.canonical).toEqual(argv(["get", "pods"], ["--namespace=x"], ["a"]));
    expect(result.canonicalTokens).toEqual(["get", "pods", "--namespace=x", "--", "a"]);
  });
});

describe("fail closed on internal errors", () => {
  it("a rule whose matcher throws makes the decision deny (policy-error), never accept", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get", "/pods/"]) });
    const regex = policy.accept.regex[0] as RegexRule;
    const throwing = /x/u;
    throwing.test = () => {
      throw new Error("matcher exploded");
    };
    const broken: CompiledPolicy = { ...policy, accept: { ...policy.accept, regex: [{ ...regex, regex: throwing }] } };
    const result = evaluatePolicy(broken, ["get", "pods"]);
    expect(result.decision).toMatchObject({ result: "deny", source: "policy-error" });
    expect(result.decision.reason).toContain("matcher exploded");
    // Without the throwing matcher the same call is accepted: the deny comes from the error.
    expect(evaluatePolicy(policy, ["get", "pods"]).decision.result).toBe("accept");
  });

  it("a grammar that throws makes the decision deny (policy-error)", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get"]) });
    const broken = { ...policy, grammar: { ...policy.grammar, parser: "nonsense" } } as unknown as CompiledPolicy;
    expect(evaluatePolicy(broken, ["get"]).decision).toMatchObject({ result: "deny", source: "policy-error" });
    const exploding = {
      ...policy,
      grammar: {
        ...policy.grammar,
        get global(): never {
          throw new Error("table missing");
        },
      },
    } as unknown as CompiledPolicy;
    expect(evaluatePolicy(exploding, ["get"]).decision).toMatchObject({ result: "deny", source: "policy-error" });
  });
});

describe("literalMatches", () => {
  const view = (c: CanonicalArgv) => ({ ...c, joined: "" });

  it("matching respects token boundaries", () => {
    expect(literalMatches(argv(["s3", "ls"]), view(argv(["s3api", "list"])))).toBe(false);
    expect(literalMatches(argv(["ec2", "describe"]), view(argv(["ec2", "describe-instances"])))).toBe(false);
    expect(literalMatches(argv(["ec2", "describe"]), view(argv(["ec2", "describe", "x"])))).toBe(true);
  });

  it("an option with a value matches exactly; without a value it matches any value but not a longer name", () => {
    expect(literalMatches(argv([], ["--namespace=x"]), view(argv(["get"], ["--namespace=x"])))).toBe(true);
    expect(literalMatches(argv([], ["--namespace=x"]), view(argv(["get"], ["--namespace=xy"])))).toBe(false);
    expect(literalMatches(argv([], ["--raw"]), view(argv(["get"], ["--raw=/x"])))).toBe(true);
    expect(literalMatches(argv([], ["--raw"]), view(argv(["get"], ["--rawx=1"])))).toBe(false);
  });

  it("each rule option consumes one argv option", () => {
    const rule = argv(["apply"], ["--filename=a", "--filename=a"]);
    expect(literalMatches(rule, view(argv(["apply"], ["--filename=a"])))).toBe(false);
    expect(literalMatches(rule, view(argv(["apply"], ["--filename=a", "--filename=a"])))).toBe(true);
  });

  it("a rule tail prefixes the argv tail; a rule without a tail ignores the argv's", () => {
    expect(literalMatches(argv(["exec"], [], ["ls"]), view(argv(["exec"], [], ["ls", "-l"])))).toBe(true);
    expect(literalMatches(argv(["exec"], [], ["ls"]), view(argv(["exec"])))).toBe(false);
    expect(literalMatches(argv(["exec"], [], []), view(argv(["exec"], [], ["x"])))).toBe(true);
    expect(literalMatches(argv(["exec"]), view(argv(["exec"], [], ["x"])))).toBe(true);
  });
});

describe("normaliseForEvaluation", () => {
  const ctx = context("kubectl", kubectlSpec, [], { ignoreArgs: { leading: ["alpha", "beta"], flags: ["--v"] } });
  const policy = compilePolicy(ctx, { shared: ruleList() });

  it("leading tokens are dropped repeatedly, only at the start", () => {
    expect(normaliseForEvaluation(policy, argv(["alpha", "beta", "alpha", "debug", "alpha"])).positionals).toEqual(["debug", "alpha"]);
  });

  it("ignored options are dropped with their value; the tail is untouched; joined is the flattened view", () => {
    const view = normaliseForEvaluation(policy, argv(["get"], ["--namespace=x", "--v=3", "--v"], ["--v=1"]));
    expect(view.options).toEqual(["--namespace=x"]);
    expect(view.tail).toEqual(["--v=1"]);
    expect(view.joined).toBe("get --namespace=x -- --v=1");
  });
});

describe("findMatch: the reported rule", () => {
  const policy = (texts: string[]) => compilePolicy(kctx, { shared: { deny: texts.map((text, i) => ({ text, origin: `o${String(i)}` })), accept: [] } });
  const view = { ...argv(["get", "pods"], ["--watch"]), joined: "get pods --watch" };

  it("the most specific literal wins, then regex rules", () => {
    expect(findMatch(policy(["/pods/", "get", "get pods --watch", "get pods"]).deny, view)?.text).toBe("get pods --watch");
    expect(findMatch(policy(["/pods/", "/get/"]).deny, view)?.text).toBe("/get/");
  });

  it("ties are broken by text, then origin, never by order", () => {
    expect(findMatch(policy(["get pods", "get -w"]).deny, view)?.text).toBe("get -w");
    expect(findMatch(policy(["get -w", "get pods"]).deny, view)?.text).toBe("get -w");
    const sameText = (origins: string[]) => compilePolicy(kctx, { shared: { deny: origins.map((origin) => ({ text: "get", origin })), accept: [] } });
    expect(findMatch(sameText(["b", "a", "c"]).deny, view)?.origin).toBe("a");
    expect(findMatch(sameText(["c", "b", "a"]).deny, view)?.origin).toBe("a");
  });

  it("option-only rules and regex rules are considered whatever the first token", () => {
    expect(findMatch(policy(["--watch"]).deny, view)?.text).toBe("--watch");
    expect(findMatch(policy(["logs", "/watch/"]).deny, view)?.text).toBe("/watch/");
  });

  it("no match gives undefined", () => {
    expect(findMatch(policy(["logs", "/secret/"]).deny, view)).toBeUndefined();
  });
});
