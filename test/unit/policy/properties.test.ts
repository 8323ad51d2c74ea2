/**
 * Policy properties (threats.md §4, Cedar-style), fast-check with fixed seeds,
 * 1,000 runs each (`npm run test:properties`; `npm test` runs 250, test/support/property-runs.ts):
 *
 *   P1 default deny · P2 deny precedence · P3 order and duplicate independence ·
 *   P4 monotonicity · P5 spelling invariance and idempotent canonicalisation ·
 *   P6 fail closed (invalid rules, throwing matchers).
 *
 * Each property also counts the runs that exercised its interesting branch and
 * asserts a floor, so a generator that drifts into trivia fails the suite.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy, type CompiledPolicy, type RegexRule } from "../../../src/policy/compile.js";
import { decideCanonical, evaluatePolicy } from "../../../src/policy/evaluate.js";
import { canonicalise } from "../../../src/policy/grammar/canonicalise.js";
import { flattenCanonical } from "../../../src/policy/grammar/types.js";
import type { LayeredRuleSpecs, PolicyDecision, ProviderPolicyContext, ProviderPolicySettings, RuleListSpec } from "../../../src/policy/types.js";
import { context } from "../../support/grammars.js";
import {
  argparseInvocation,
  argvArb,
  bodyItems,
  expectedCanonical,
  GRAMMAR_NAMES,
  GRAMMARS,
  INVALID_RULES,
  layeredTextsArb,
  layeredTextsForArgv,
  pflagInvocation,
  renderArgparseInvocation,
  renderPflagInvocation,
  ruleTextArb,
  settingsArb,
  withOrigins,
  type GrammarName,
  type LayeredTexts,
} from "../../support/policy-arbitraries.js";
import { propertyRuns } from "../../support/property-runs.js";

const SEED = 20261130;
const RUNS = propertyRuns(1000);
// A failing property may shrink for long through fc.gen(); bound the whole run
// (a passing one takes a few seconds) and count an interruption as a failure.
const params = (offset: number): fc.Parameters<unknown> => ({
  seed: SEED + offset,
  numRuns: RUNS,
  plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })],
});

function ctxFor(name: GrammarName, settings: ProviderPolicySettings): ProviderPolicyContext {
  return context(name, GRAMMARS[name].spec, GRAMMARS[name].locked, settings);
}

function decide(ctx: ProviderPolicyContext, rules: LayeredRuleSpecs, argv: readonly string[]): PolicyDecision {
  return evaluatePolicy(compilePolicy(ctx, rules), argv).decision;
}

/** What P3 and P5 compare: the decision, its source and the reported rule (not the prose reason). */
function summary(decision: PolicyDecision): { result: string; source: string; rule: unknown } {
  return { result: decision.result, source: decision.source, rule: "rule" in decision ? decision.rule : null };
}

const grammarArb = fc.constantFrom(...GRAMMAR_NAMES);

/** A grammar with an argv, rules and settings drawn for it. */
const scenarioArb = (withIgnore = true) =>
  grammarArb.chain((name) =>
    argvArb(name).chain((argv) =>
      fc.record({
        name: fc.constant(name),
        argv: fc.constant(argv),
        rules: layeredTextsForArgv(name, argv),
        settings: settingsArb(name, withIgnore),
      }),
    ),
  );

describe("P1 default deny", () => {
  it("with no accept rule nothing is ever accept", () => {
    let unresolved = 0;
    fc.assert(
      fc.property(scenarioArb(), ({ name, argv, rules, settings }) => {
        const noAccept: LayeredTexts = {
          shared: { deny: rules.shared.deny, accept: [] },
          ...(rules.target === undefined ? {} : { target: { deny: rules.target.deny, accept: [] } }),
        };
        const decision = decide(ctxFor(name, settings), withOrigins(noAccept), argv);
        expect(decision.result).not.toBe("accept");
        if (decision.result === "unresolved") unresolved += 1;
      }),
      params(1),
    );
    expect(unresolved).toBeGreaterThan(RUNS / 10);
  });
});

describe("P2 deny precedence", () => {
  it("adding a deny rule equal to a prefix of the canonical argv makes the decision deny, whatever the accepts", () => {
    let accepted = 0;
    fc.assert(
      fc.property(scenarioArb(false), fc.nat(), fc.nat(), fc.boolean(), ({ name, argv, rules: drawn, settings }, cut, acceptCut, inTarget) => {
        const ctx = ctxFor(name, { ...settings, forbiddenArgs: [] });
        const result = canonicalise(argv, compilePolicy(ctx, { shared: { deny: [], accept: [] } }).grammar);
        if (!result.ok || flattenCanonical(result.canonical).length === 0) {
          expect(decide(ctx, withOrigins(drawn), argv).result).not.toBe("accept");
          return;
        }
        const tokens = flattenCanonical(result.canonical);
        // "Whatever the accepts": the drawn ones plus one that matches this very
        // argv; no other deny, so the argv is often accepted before the deny is added.
        const matchingAccept = tokens.slice(0, 1 + (acceptCut % tokens.length)).join(" ");
        const rules: LayeredTexts = {
          shared: { deny: [], accept: [...drawn.shared.accept, matchingAccept] },
          ...(drawn.target === undefined ? {} : { target: { deny: [], accept: drawn.target.accept } }),
        };
        const before = decide(ctx, withOrigins(rules), argv);
        const rule = tokens.slice(0, 1 + (cut % tokens.length)).join(" ");
        const layer = inTarget && rules.target !== undefined ? "target" : "shared";
        const list = rules[layer] ?? { deny: [], accept: [] };
        const withDeny: LayeredTexts = { ...rules, [layer]: { ...list, deny: [...list.deny, rule] } };
        const after = decide(ctx, withOrigins(withDeny), argv);
        expect(after.result).toBe("deny");
        if (before.result === "accept") accepted += 1;
      }),
      params(2),
    );
    expect(accepted).toBeGreaterThan(RUNS / 20);
  });
});

describe("P3 order and duplicate independence", () => {
  /** Shuffles a list and inserts duplicates of some of its rules (origins travel with their rule). */
  const reshaped = (list: RuleListSpec["deny"]) =>
    fc
      .tuple(fc.shuffledSubarray([...list], { minLength: list.length, maxLength: list.length }), fc.subarray([...list]))
      .chain(([shuffled, dups]) => fc.shuffledSubarray([...shuffled, ...dups], { minLength: shuffled.length + dups.length }));

  it("shuffling and duplicating rules never changes decision, source or reported rule", () => {
    let decidedByRule = 0;
    const arb = scenarioArb().chain((scenario) => {
      const specs = withOrigins(scenario.rules);
      const layer = (l: RuleListSpec) => fc.record({ deny: reshaped(l.deny), accept: reshaped(l.accept) });
      return fc.record({
        scenario: fc.constant(scenario),
        original: fc.constant(specs),
        permuted:
          specs.target === undefined ? fc.record({ shared: layer(specs.shared) }) : fc.record({ shared: layer(specs.shared), target: layer(specs.target) }),
      });
    });
    fc.assert(
      fc.property(arb, ({ scenario, original, permuted }) => {
        const ctx = ctxFor(scenario.name, scenario.settings);
        const a = summary(decide(ctx, original, scenario.argv));
        const b = summary(decide(ctx, permuted, scenario.argv));
        expect(b).toEqual(a);
        if (a.rule !== null) decidedByRule += 1;
      }),
      params(3),
    );
    expect(decidedByRule).toBeGreaterThan(RUNS / 10);
  });
});

describe("P4 monotonicity", () => {
  const order = { accept: 2, unresolved: 1, deny: 0 } as const;

  it("adding a deny or removing an accept never turns deny/unresolved into accept, nor deny into unresolved", () => {
    let changed = 0;
    fc.assert(
      fc.property(
        scenarioArb().chain((s) =>
          fc.record({
            s: fc.constant(s),
            // A random rule, or a prefix of the argv itself (which often matches).
            extraDeny: fc.oneof(
              ruleTextArb(s.name),
              fc.nat().map((cut) => s.argv.slice(0, 1 + (cut % Math.max(1, s.argv.length))).join(" ") || "get"),
            ),
            drop: fc.nat(),
            layerPick: fc.boolean(),
            mode: fc.boolean(),
          }),
        ),
        ({ s, extraDeny, drop, layerPick, mode }) => {
          const ctx = ctxFor(s.name, s.settings);
          const base = withOrigins(s.rules);
          fc.pre(compilePolicy(ctx, base).errors.length === 0);
          const layer = layerPick && s.rules.target !== undefined ? "target" : "shared";
          const list = s.rules[layer] ?? { deny: [], accept: [] };
          let narrowed: LayeredTexts;
          if (mode || list.accept.length === 0) {
            narrowed = { ...s.rules, [layer]: { ...list, deny: [...list.deny, extraDeny] } };
          } else {
            const at = drop % list.accept.length;
            narrowed = { ...s.rules, [layer]: { ...list, accept: list.accept.filter((_, i) => i !== at) } };
          }
          const before = decide(ctx, base, s.argv).result;
          const after = decide(ctx, withOrigins(narrowed), s.argv).result;
          expect(order[after]).toBeLessThanOrEqual(order[before]);
          if (after !== before) changed += 1;
        },
      ),
      params(4),
    );
    expect(changed).toBeGreaterThan(RUNS / 50);
  });
});

// The aws and az properties take seconds on a quiet machine (1,000 invocations through the
// largest option tables) and several times that on a loaded one: their bound is fast-check's own
// time limit above (an interruption fails), not the suite's 20 s per test.
describe("P5 spelling invariance", { timeout: 90_000 }, () => {
  const policyArb = (name: GrammarName) => fc.record({ rules: layeredTextsArb(name), settings: settingsArb(name) });

  it("pflag: every spelling of an invocation has the invocation's canonical argv and decides like it", () => {
    fc.assert(
      fc.property(fc.gen(), policyArb("kubectl"), (g, { rules, settings }) => {
        const invocation = pflagInvocation(g, false);
        const spelled = renderPflagInvocation(g, invocation);
        const expected = expectedCanonical(invocation);
        const ctx = ctxFor("kubectl", settings);
        const grammar = compilePolicy(ctx, { shared: { deny: [], accept: [] } }).grammar;
        const result = canonicalise(spelled, grammar);
        if (!result.ok) throw new Error(`${JSON.stringify(spelled)} rejected: ${result.rejection.reason}`);
        expect(flattenCanonical(result.canonical)).toEqual(expected);
        expect(summary(decide(ctx, withOrigins(rules), spelled))).toEqual(summary(decide(ctx, withOrigins(rules), expected)));
      }),
      params(5),
    );
  });

  it("pflag: a locked option is refused whatever the spelling", () => {
    let locked = 0;
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const invocation = pflagInvocation(g, true);
        const spelled = renderPflagInvocation(g, invocation);
        const result = canonicalise(
          spelled,
          compilePolicy(ctxFor("kubectl", { minimumAcceptTokens: 1, forbiddenArgs: [], ignoreArgs: { leading: [], flags: [] } }), {
            shared: { deny: [], accept: [] },
          }).grammar,
        );
        if (invocation.locked.length === 0) {
          expect(result.ok).toBe(true);
          return;
        }
        locked += 1;
        expect(result.ok ? "accepted" : result.rejection.kind).toBe("locked-option");
        if (!result.ok) expect(invocation.locked).toContain(result.rejection.option);
      }),
      params(6),
    );
    expect(locked).toBeGreaterThan(RUNS / 4);
  });

  for (const [offset, name] of [
    [7, "aws"],
    [8, "az"],
  ] as const) {
    it(`${name}: prefixes, = forms, shorts, clusters and reordered globals give one canonical argv and one decision`, () => {
      let lockedSeen = 0;
      fc.assert(
        fc.property(fc.gen(), policyArb(name), fc.boolean(), (g, { rules, settings }, includeLocked) => {
          const invocation = argparseInvocation(g, name, includeLocked);
          const spelled = renderArgparseInvocation(g, name, invocation, bodyItems(invocation));
          const ctx = ctxFor(name, settings);
          const result = canonicalise(spelled, compilePolicy(ctx, { shared: { deny: [], accept: [] } }).grammar);
          if (invocation.locked.length > 0) {
            lockedSeen += 1;
            expect(result.ok ? "accepted" : result.rejection.kind).toBe("locked-option");
            return;
          }
          if (!result.ok) throw new Error(`${JSON.stringify(spelled)} rejected: ${result.rejection.reason}`);
          expect(flattenCanonical(result.canonical)).toEqual(expectedCanonical(invocation));
          expect(summary(decide(ctx, withOrigins(rules), spelled))).toEqual(summary(decide(ctx, withOrigins(rules), expectedCanonical(invocation))));
        }),
        params(offset),
      );
      expect(lockedSeen).toBeGreaterThan(RUNS / 10);
    });
  }

  it("canonicalisation is idempotent and decide(x) == decide(canon(x)) for arbitrary argv", () => {
    let accepted = 0;
    fc.assert(
      fc.property(scenarioArb(), ({ name, argv, rules, settings }) => {
        const ctx = ctxFor(name, settings);
        const grammar = compilePolicy(ctx, { shared: { deny: [], accept: [] } }).grammar;
        const first = canonicalise(argv, grammar);
        if (!first.ok) return;
        accepted += 1;
        const once = flattenCanonical(first.canonical);
        const second = canonicalise(once, grammar);
        if (!second.ok) throw new Error(`canonical ${JSON.stringify(once)} of ${JSON.stringify(argv)} rejected: ${second.rejection.reason}`);
        expect(second.canonical).toEqual(first.canonical);
        expect(summary(decide(ctx, withOrigins(rules), once))).toEqual(summary(decide(ctx, withOrigins(rules), argv)));
      }),
      params(9),
    );
    expect(accepted).toBeGreaterThan(RUNS / 5);
  });
});

describe("P6 fail closed", () => {
  it("a policy containing an invalid rule denies every argv", () => {
    fc.assert(
      fc.property(
        scenarioArb(),
        fc.constantFrom(...INVALID_RULES),
        fc.constantFrom("shared.deny", "shared.accept", "target.deny", "target.accept"),
        fc.nat(),
        ({ name, argv, rules, settings }, bad, where, at) => {
          const [layer, list] = where.split(".") as ["shared" | "target", "deny" | "accept"];
          const current = rules[layer] ?? { deny: [], accept: [] };
          const items = [...current[list]];
          items.splice(at % (items.length + 1), 0, bad);
          const broken: LayeredTexts = { ...rules, [layer]: { ...current, [list]: items } };
          const decision = decide(ctxFor(name, settings), withOrigins(broken), argv);
          expect(decision.result).toBe("deny");
          expect(["policy-error", "locked-option", "forbidden-value", "argv-rejected"]).toContain(decision.source);
        },
      ),
      params(10),
    );
  });

  it("a rule whose matcher throws yields deny (policy-error or an earlier deny), never accept, in evaluatePolicy and decideCanonical", () => {
    let errors = 0;
    const throwing = /x/u;
    throwing.test = () => {
      throw new Error("matcher failed");
    };
    const poison = (policy: CompiledPolicy): CompiledPolicy => {
      const rule: RegexRule = { kind: "regex", ref: { text: "/boom/", list: "deny", layer: "shared", origin: "test" }, regex: throwing, exact: false };
      const accept: RegexRule = { ...rule, ref: { ...rule.ref, list: "accept" } };
      return {
        ...policy,
        deny: { ...policy.deny, regex: [...policy.deny.regex, rule] },
        accept: { ...policy.accept, regex: [accept, ...policy.accept.regex] },
      };
    };
    fc.assert(
      fc.property(scenarioArb(), ({ name, argv, rules, settings }) => {
        const policy = poison(compilePolicy(ctxFor(name, settings), withOrigins(rules)));
        const evaluation = evaluatePolicy(policy, argv);
        expect(evaluation.decision.result).toBe("deny");
        if (evaluation.decision.source === "policy-error") errors += 1;
        if (evaluation.canonical !== undefined) expect(decideCanonical(policy, evaluation.canonical).result).toBe("deny");
      }),
      params(11),
    );
    expect(errors).toBeGreaterThan(RUNS / 5);
  });
});
