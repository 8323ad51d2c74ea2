/**
 * Rule compilation: layering, minimum tokens, the first-token index, rule errors,
 * forbidden/ignore args in canonical spelling. docs/policy.md "Rules", "Layering".
 */
import { describe, expect, it } from "vitest";
import { compilePolicy, grammarFor, type LiteralRule } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { awsSpec, azSpec, context, KUBECTL_LOCKED, kubectlSpec, plainSpec } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";

const kctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED);
const texts = (rules: readonly { ref: { text: string } }[]): string[] => rules.map((rule) => rule.ref.text);

describe("layering", () => {
  it("a target deny is added to the shared deny floor", () => {
    const policy = compilePolicy(kctx, { shared: ruleList(["delete"]), target: ruleList(["get secrets"], [], "target") });
    expect(texts(policy.deny.all)).toEqual(["delete", "get secrets"]);
    expect(policy.deny.all.map((rule) => rule.ref.layer)).toEqual(["shared", "target"]);
  });

  it("a target policy cannot drop a shared deny (an empty target deny list keeps it)", () => {
    const policy = compilePolicy(kctx, { shared: ruleList(["delete"], ["get"]), target: ruleList([], ["delete pod x"], "target") });
    expect(texts(policy.deny.all)).toEqual(["delete"]);
    expect(evaluatePolicy(policy, ["delete", "pod", "x"]).decision.source).toBe("explicit-deny");
  });

  it("the target's accept replaces the shared accepts when the target has rules", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get", "logs"]), target: ruleList([], ["get pods"], "target") });
    expect(texts(policy.accept.all)).toEqual(["get pods"]);
    expect(policy.accept.all[0]?.ref).toEqual({ text: "get pods", list: "accept", layer: "target", origin: "target.accept:1" });
  });

  it("an empty target accept list replaces the shared accepts with nothing", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get"]), target: ruleList() });
    expect(policy.accept.all).toEqual([]);
  });

  it("without a target rules file the shared accepts apply", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get", "logs"]) });
    expect(texts(policy.accept.all)).toEqual(["get", "logs"]);
    expect(policy.accept.all.every((rule) => rule.ref.layer === "shared")).toBe(true);
  });
});

describe("literal rules", () => {
  it("a literal rule is canonicalised with the provider's grammar (-n x is --namespace=x)", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get pods -n x", "-n x get pods"]) });
    const [a, b] = policy.accept.all as LiteralRule[];
    expect(a?.canonical).toEqual({ positionals: ["get", "pods"], options: ["--namespace=x"], hasTail: false, tail: [] });
    expect(b?.canonical).toEqual(a?.canonical);
  });

  it("token count is the canonical count: positionals, options, and -- plus tail", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get -Aw", "get -n x", "exec web -- sh -c"]) });
    expect((policy.accept.all as LiteralRule[]).map((rule) => rule.tokenCount)).toEqual([3, 2, 5]);
  });

  it("whitespace of any kind separates tokens", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["  get\tpods \n -w "]) });
    expect((policy.accept.all[0] as LiteralRule).canonical.positionals).toEqual(["get", "pods"]);
  });
});

describe("minimum_accept_tokens", () => {
  const ctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED, { minimumAcceptTokens: 3 });

  it("accept rules below the minimum are ignored and reported", () => {
    const policy = compilePolicy(ctx, { shared: ruleList([], ["get", "get pods", "get pods -n x"]) });
    expect(texts(policy.accept.all)).toEqual(["get pods -n x"]);
    expect(policy.ignoredAccept.map((ref) => ref.text)).toEqual(["get", "get pods"]);
    expect(policy.ignoredAccept[0]).toMatchObject({ list: "accept", layer: "shared", origin: "shared.accept:1" });
  });

  it("regex accept rules and deny rules are exempt", () => {
    const policy = compilePolicy(ctx, { shared: ruleList(["get"], ["/get/"]) });
    expect(texts(policy.accept.all)).toEqual(["/get/"]);
    expect(texts(policy.deny.all)).toEqual(["get"]);
    expect(policy.ignoredAccept).toEqual([]);
  });

  it("only the accept list in force is checked (target accepts, not the replaced shared ones)", () => {
    const policy = compilePolicy(ctx, { shared: ruleList([], ["get"]), target: ruleList([], ["logs"], "target") });
    expect(policy.ignoredAccept.map((ref) => `${ref.layer}:${ref.text}`)).toEqual(["target:logs"]);
  });
});

describe("index by first token", () => {
  it("literal rules are bucketed by their first canonical positional", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["get pods", "-n x get", "logs", "--watch", "/x/"]) });
    expect([...policy.accept.byFirstToken.keys()].sort()).toEqual(["get", "logs"]);
    expect(texts(policy.accept.byFirstToken.get("get") ?? [])).toEqual(["get pods", "-n x get"]);
    expect(texts(policy.accept.optionOnly)).toEqual(["--watch"]);
    expect(texts(policy.accept.regex)).toEqual(["/x/"]);
    expect(texts(policy.accept.all)).toEqual(["get pods", "-n x get", "logs", "--watch", "/x/"]);
  });

  it("argparse rules are indexed after global options move out of the way", () => {
    const policy = compilePolicy(context("aws", awsSpec), { shared: ruleList([], ["--output json s3 ls"]) });
    expect([...policy.accept.byFirstToken.keys()]).toEqual(["s3"]);
  });
});

describe("rule errors fail closed", () => {
  it("an invalid regex is recorded with its rule and message, and dropped from the lists", () => {
    const policy = compilePolicy(kctx, { shared: ruleList(["/(/"], ["get"]) });
    expect(policy.errors).toHaveLength(1);
    expect(policy.errors[0]?.ref).toEqual({ text: "/(/", list: "deny", layer: "shared", origin: "shared.deny:1" });
    expect(policy.errors[0]?.message).toMatch(/^invalid regular expression/u);
    expect(policy.deny.all).toEqual([]);
  });

  it("a bad regex flag, an unreadable literal and an empty rule are errors", () => {
    const policy = compilePolicy(kctx, { shared: ruleList([], ["/a/g", "get ---x", "   "]) });
    expect(policy.errors.map((error) => error.ref.text)).toEqual(["/a/g", "get ---x", "   "]);
    expect(policy.errors[2]?.message).toBe("the rule is empty");
  });

  it("errors are collected from every layer, the replaced shared accepts included", () => {
    const policy = compilePolicy(kctx, {
      shared: ruleList(["/(/"], ["/[/"]),
      target: ruleList(["/)/"], ["get"], "target"),
    });
    expect(policy.errors.map((error) => `${error.ref.layer}.${error.ref.list}:${error.ref.text}`).sort()).toEqual([
      "shared.accept:/[/",
      "shared.deny:/(/",
      "target.deny:/)/",
    ]);
  });

  it("a valid policy has no errors", () => {
    expect(compilePolicy(kctx, { shared: ruleList(["delete"], ["get", "/x/i"]) }).errors).toEqual([]);
  });
});

describe("forbidden_args and ignore_args in canonical spelling", () => {
  it("a forbidden short alias is resolved in the globals and in every command scope", () => {
    const ctx = context("kubectl", kubectlSpec, [], { forbiddenArgs: ["-n", "-w", "-f", "-Z", "--raw"] });
    const forbidden = compilePolicy(ctx, { shared: ruleList() }).forbiddenArgs;
    expect([...forbidden].sort()).toEqual(["--filename", "--follow", "--namespace", "--raw", "--watch", "-Z"]);
  });

  it("pflag forbidden names are _-normalised; argparse and plain ones are kept as written", () => {
    const settings = { forbiddenArgs: ["--show_labels", "--ca_bundle"] };
    expect(compilePolicy(context("k", kubectlSpec, [], settings), { shared: ruleList() }).forbiddenArgs).toEqual(["--show-labels", "--ca-bundle"]);
    expect(compilePolicy(context("a", awsSpec, [], settings), { shared: ruleList() }).forbiddenArgs).toEqual(["--show_labels", "--ca_bundle"]);
    expect(compilePolicy(context("p", plainSpec, [], settings), { shared: ruleList() }).forbiddenArgs).toEqual(["--show_labels", "--ca_bundle"]);
  });

  it("an argparse short alias is resolved (-o is --output for az)", () => {
    expect(compilePolicy(context("az", azSpec, [], { forbiddenArgs: ["-o"] }), { shared: ruleList() }).forbiddenArgs).toEqual(["--output"]);
  });

  it("an entry with =value is kept as written", () => {
    expect(compilePolicy(context("k", kubectlSpec, [], { forbiddenArgs: ["--namespace=kube-system"] }), { shared: ruleList() }).forbiddenArgs).toEqual([
      "--namespace=kube-system",
    ]);
  });

  it("ignore flags resolve a global short alias and _; leading tokens are kept as written", () => {
    const ctx = context("kubectl", kubectlSpec, [], { ignoreArgs: { leading: ["alpha"], flags: ["-v", "--request_timeout"] } });
    const policy = compilePolicy(ctx, { shared: ruleList() });
    expect([...policy.ignoreFlags].sort()).toEqual(["--request-timeout", "--v"]);
    expect([...policy.ignoreLeading]).toEqual(["alpha"]);
  });
});

describe("grammarFor", () => {
  it("the compiled grammar is cached per grammar spec and locked set", () => {
    const a = grammarFor(context("k", kubectlSpec, ["--context"]));
    expect(grammarFor(context("k2", kubectlSpec, ["--context"]))).toBe(a);
    const b = grammarFor(context("k", kubectlSpec, ["--context", "--server"]));
    expect(b).not.toBe(a);
    expect(b.locked.has("--server")).toBe(true);
    expect(a.locked.has("--server")).toBe(false);
  });
});
