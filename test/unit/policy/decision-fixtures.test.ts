/**
 * Runs every decision fixture (test/fixtures/decisions/*.yaml) against both
 * components that make or show a policy decision: the evaluator
 * (`evaluatePolicy(compilePolicy(…))`) and `explain` (torii_policy / `torii
 * policy check`). Both must agree with the fixture and with each other.
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { explainWith } from "../../../src/policy/explain.js";
import { loadDecisionFixtures, type DecisionCase } from "../../support/decision-fixtures.js";

const { files, cases } = loadDecisionFixtures();

interface Observed {
  decision: string;
  source: string;
  rule: string | null;
  canonical: readonly string[] | null;
}

function viaEvaluator(c: DecisionCase): Observed & { option?: string; forbidden?: string; reason: string } {
  const { decision, canonicalTokens } = evaluatePolicy(compilePolicy(c.context, c.rules), c.argv);
  return {
    decision: decision.result,
    source: decision.source,
    rule: "rule" in decision ? decision.rule.text : null,
    canonical: canonicalTokens ?? null,
    reason: decision.reason,
    ...("option" in decision ? { option: decision.option } : {}),
    ...("forbidden" in decision ? { forbidden: decision.forbidden } : {}),
  };
}

function viaExplain(c: DecisionCase): Observed {
  const explanation = explainWith(compilePolicy(c.context, c.rules), c.argv, c.target);
  expect(explanation.target).toBe(c.target);
  expect(explanation.tool).toBe(c.context.tool);
  return {
    decision: explanation.decision,
    source: explanation.source,
    rule: explanation.rule?.text ?? null,
    canonical: explanation.canonical_argv ?? null,
  };
}

describe("decision fixtures", () => {
  it("the fixture set cannot silently shrink: at least 100 cases in at least 10 files", () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
    expect(cases.length).toBeGreaterThanOrEqual(100);
  });

  it("every decision source of docs/policy.md is exercised by some fixture", () => {
    const sources = new Set(cases.map((c) => c.expect.source));
    expect([...sources].sort()).toEqual([
      "argv-rejected",
      "explicit-deny",
      "forbidden-arg",
      "forbidden-value",
      "locked-option",
      "no-rule",
      "policy-error",
      "rules",
    ]);
  });

  it("case names are unique within a file", () => {
    const seen = new Set<string>();
    for (const c of cases) {
      const key = `${c.file}: ${c.name}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });

  for (const file of files) {
    describe(file, () => {
      for (const c of cases.filter((item) => item.file === file)) {
        it(c.name, () => {
          const evaluated = viaEvaluator(c);
          const explained = viaExplain(c);
          const wanted = { decision: c.expect.decision, source: c.expect.source, rule: c.expect.rule, canonical: c.expect.canonical };
          expect({ decision: evaluated.decision, source: evaluated.source, rule: evaluated.rule, canonical: evaluated.canonical }).toEqual(wanted);
          expect(explained).toEqual(wanted);
          if (c.expect.option !== undefined) expect(evaluated.option).toBe(c.expect.option);
          if (c.expect.forbidden !== undefined) expect(evaluated.forbidden).toBe(c.expect.forbidden);
          for (const text of c.expect.reason_contains) expect(evaluated.reason).toContain(text);
          for (const text of c.expect.reason_excludes) expect(evaluated.reason).not.toContain(text);
          // Consistency the fixtures rely on: a rejected argv has no canonical form,
          // and only rule-decided results name a rule.
          const rejected = ["locked-option", "forbidden-value", "argv-rejected"].includes(c.expect.source);
          expect(evaluated.canonical === null).toBe(rejected);
          expect(evaluated.rule !== null).toBe(["explicit-deny", "rules"].includes(c.expect.source));
        });
      }
    });
  }
});
