/**
 * Rule-change simulation on audit heads (docs/policy.md "Simulating a rule change"):
 * decisions on the head, the `certain` flag when a changed rule looks past the
 * head, and whether a proposed rule would take effect.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { diffRules, ruleTakesEffect, simulatePolicyChange, type RuleEffect } from "../../../src/policy/rule-simulation.js";
import { context, KUBECTL_LOCKED, kubectlSpec } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";

const kctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED);
const policy = (deny: string[], accept: string[]) => compilePolicy(kctx, { shared: ruleList(deny, accept) });
/** A RuleEffect check: not effective, with a reason containing `text`. */
const refusedWith =
  (text: string) =>
  (effect: RuleEffect): boolean =>
    !effect.effective && effect.reason.includes(text);
const calls = (...heads: string[][]) => heads.map((head, index) => ({ head, id: index }));

describe("simulatePolicyChange", () => {
  it("reports heads a new accept rule allows, once per distinct head, with every call that had it", () => {
    const outcomes = simulatePolicyChange(policy([], []), policy([], ["get pods"]), calls(["get", "pods"], ["get", "pods"], ["logs", "web"]));
    expect(outcomes.map((o) => [o.head.join(" "), o.change, o.calls.length, o.certain])).toEqual([
      ["get pods", "newly-allowed", 2, true],
      ["logs web", "unchanged", 1, true],
    ]);
  });

  it("reports heads a new deny rule denies and accept rules it overrides", () => {
    const outcomes = simulatePolicyChange(policy([], ["get"]), policy(["get secrets"], ["get"]), calls(["get", "secrets"], ["get", "pods"]));
    expect(outcomes.map((o) => o.change)).toEqual(["newly-denied", "unchanged"]);
    expect(outcomes[0]?.after).toMatchObject({ source: "explicit-deny", rule: { text: "get secrets" } });
  });

  it("reports calls a removed accept rule leaves to a grant or a human", () => {
    const [outcome] = simulatePolicyChange(policy([], ["logs"]), policy([], []), calls(["logs", "web"]));
    expect(outcome?.change).toBe("no-longer-allowed");
  });

  it("marks a head uncertain when a changed rule needs tokens the audit head does not keep", () => {
    const withOption = simulatePolicyChange(policy([], ["get"]), policy(["get pods --all-namespaces"], ["get"]), calls(["get", "pods"], ["logs", "x"]));
    expect(withOption.map((o) => [o.change, o.certain])).toEqual([
      ["unchanged", false],
      ["unchanged", true],
    ]);
    const longer = simulatePolicyChange(policy([], []), policy([], ["get pods web"]), calls(["get", "pods"]));
    expect(longer[0]).toMatchObject({ change: "unchanged", certain: false });
    const regex = simulatePolicyChange(policy([], []), policy(["/secret/"], []), calls(["get", "pods"]));
    expect(regex[0]?.certain).toBe(false);
  });
});

describe("diffRules", () => {
  it("lists the rules added and removed by list and text", () => {
    const diff = diffRules(policy(["delete"], ["get"]), policy(["delete", "exec"], ["logs"]));
    expect(diff.added.map((r) => `${r.list} ${r.text}`)).toEqual(["deny exec", "accept logs"]);
    expect(diff.removed.map((r) => `${r.list} ${r.text}`)).toEqual(["accept get"]);
  });
});

describe("ruleTakesEffect", () => {
  it("an accept rule takes effect when it decides the call", () => {
    expect(ruleTakesEffect(policy([], ["get pods"]), "accept", "get pods", ["get", "pods", "-n", "x"]).effective).toBe(true);
  });

  it("an accept rule does not take effect when a deny rule wins, and says which", () => {
    const effect = ruleTakesEffect(policy(["get secrets"], ["get secrets x"]), "accept", "get secrets x", ["get", "secrets", "x"]);
    expect(effect).toSatisfy(refusedWith('deny rule "get secrets"'));
  });

  it("an accept rule does not take effect when the floor refuses the call (a locked option)", () => {
    const effect = ruleTakesEffect(policy([], ["get pods"]), "accept", "get pods", ["get", "pods", "--context", "prod"]);
    expect(effect).toSatisfy(refusedWith("--context"));
  });

  it("an accept rule below minimum_accept_tokens does not take effect", () => {
    const strict = compilePolicy(context("kubectl", kubectlSpec, KUBECTL_LOCKED, { minimumAcceptTokens: 2 }), { shared: ruleList([], ["get"]) });
    expect(ruleTakesEffect(strict, "accept", "get", ["get", "pods"])).toSatisfy(refusedWith("minimum_accept_tokens"));
  });

  it("a deny rule takes effect on a call it denies, and not on one the floor already refuses", () => {
    expect(ruleTakesEffect(policy(["delete"], []), "deny", "delete", ["delete", "pod", "x"]).effective).toBe(true);
    expect(ruleTakesEffect(policy(["get"], []), "deny", "get", ["get", "--token=x"])).toSatisfy(refusedWith("already refused"));
  });
});
