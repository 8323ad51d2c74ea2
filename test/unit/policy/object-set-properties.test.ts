/**
 * P5c kubectl object sets (red-team F7), through the bundled kubectl provider.
 * fast-check with fixed seeds, 1,000 runs each (`npm run test:properties`; `npm test`
 * runs 250, test/support/property-runs.ts):
 *
 *   - a call that reaches the objects of a denied call without naming them (a
 *     selector, `--all`, `-A`, no name at all, `-f`/`-k`/`--raw`) is denied too,
 *     whatever the accepts;
 *   - such a call is accepted only when every call naming one of the objects it
 *     may reach is accepted (accept rules are not widened);
 *   - `logs`/`exec` on a controller (`sts/db`) is denied whenever the same
 *     command on some pod is.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { PolicyDecision } from "../../../src/policy/types.js";
import { propertyParams } from "../../support/policy-arbitraries.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";
import { propertyRuns } from "../../support/property-runs.js";

const SEED = 20261130;
const RUNS = propertyRuns(1000);
const params = (offset: number): fc.Parameters<unknown> => propertyParams(SEED + offset, RUNS);

const kubectl = bundledPolicyContext("kubectl");

function decide(deny: readonly string[], accept: readonly string[], argv: readonly string[]): PolicyDecision {
  return evaluatePolicy(compilePolicy(kubectl, { shared: ruleList([...deny], [...accept]) }), argv).decision;
}

const TYPES = { secrets: ["secret", "Secret"], pods: ["pod", "po"], configmaps: ["cm", "configmap"] } as const;
const PLURALS = Object.keys(TYPES) as (keyof typeof TYPES)[];
const NAMES = ["prod-db", "web", "x"] as const;
const VERBS = [["get"], ["delete"], ["describe"], ["label"], ["rollout", "restart"]] as const;
const spellingArb = (plural: keyof typeof TYPES): fc.Arbitrary<string> => fc.constantFrom(plural, ...TYPES[plural]);

/** Literal rules: a verb, a verb and type, a verb, type and name (the name-scoped denies F7 bypassed). */
const ruleArb = fc.oneof(
  fc.constantFrom(...VERBS).map((verb) => verb.join(" ")),
  fc
    .tuple(fc.constantFrom(...VERBS), fc.constantFrom(...PLURALS).chain(spellingArb), fc.option(fc.constantFrom(...NAMES), { nil: undefined }))
    .map(([verb, type, name]) => [...verb, type, ...(name === undefined ? [] : [name])].join(" ")),
);

/** Ways to reach objects of the listed types without naming them; `anyType` ones reach every type. */
const OPEN_FORMS = [
  { options: ["-l", "app=db"], anyType: false },
  { options: ["--field-selector=metadata.name=prod-db"], anyType: false },
  { options: ["--all"], anyType: false },
  { options: ["--all", "-A"], anyType: false },
  { options: [], anyType: false },
  { options: ["-f", "objects.yaml"], anyType: true },
  { options: ["-k", "overlay/"], anyType: true },
  { options: ["--filename=dir/", "-R"], anyType: true },
] as const;

const callArb = fc.record({
  verb: fc.constantFrom(...VERBS),
  types: fc.uniqueArray(fc.constantFrom(...PLURALS), { minLength: 1, maxLength: 2 }),
  names: fc.uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 2 }),
  form: fc.constantFrom(...OPEN_FORMS),
  namespace: fc.boolean(),
  deny: fc.array(ruleArb, { maxLength: 3 }),
  accept: fc.array(ruleArb, { maxLength: 4 }),
});

type Call = typeof callArb extends fc.Arbitrary<infer T> ? T : never;

const namespaceOf = (call: Call): string[] => (call.namespace ? ["-n", "prod"] : []);

/** The call that names its objects: `verb a,b n1 n2`. */
const named = (call: Call): string[] => [...call.verb, call.types.join(","), ...call.names, ...namespaceOf(call)];

/** The same verb reaching them another way: a manifest names no type; the other forms keep the type list. */
const open = (call: Call): string[] => [...call.verb, ...(call.form.anyType ? [] : [call.types.join(",")]), ...call.form.options, ...namespaceOf(call)];

describe("P5c kubectl calls that do not name their objects", () => {
  it("a selector, --all, no name or a manifest never turns a denied call into an allowed one", () => {
    let denied = 0;
    fc.assert(
      fc.property(callArb, (call) => {
        if (decide(call.deny, call.accept, named(call)).result !== "deny") return;
        denied += 1;
        expect(decide(call.deny, call.accept, open(call)).result).toBe("deny");
      }),
      params(1),
    );
    expect(denied).toBeGreaterThan(RUNS / 10);
  });

  it("such a call is accepted only when every call naming one object it may reach is", () => {
    let accepted = 0;
    fc.assert(
      fc.property(callArb, (call) => {
        if (decide(call.deny, call.accept, open(call)).result !== "accept") return;
        accepted += 1;
        const types = call.form.anyType ? PLURALS : call.types;
        for (const type of types) {
          for (const name of NAMES) {
            expect(decide(call.deny, call.accept, [...call.verb, type, name, ...namespaceOf(call)]).result).toBe("accept");
          }
        }
      }),
      params(2),
    );
    expect(accepted).toBeGreaterThan(RUNS / 20);
  });

  it("logs and exec on a controller are denied whenever they are on some pod", () => {
    const CONTROLLERS = ["sts", "deploy", "Deployment.apps", "rs", "ds", "job", "svc", "rc"];
    const namedRuleArb = fc.oneof(
      fc.constantFrom("logs", "exec", "logs pods", "exec pods", "logs deployments web"),
      fc
        .tuple(fc.constantFrom("logs", "exec"), fc.constantFrom("", "pods ", "pod/"), fc.constantFrom("db-0", "web-1"))
        .map(([verb, type, pod]) => `${verb} ${type}${pod}`),
    );
    const arb = fc.record({
      verb: fc.constantFrom("logs", "exec"),
      pod: fc.constantFrom("db-0", "web-1", "api-2"),
      controller: fc.constantFrom(...CONTROLLERS),
      name: fc.constantFrom("db", "web"),
      deny: fc.array(namedRuleArb, { minLength: 1, maxLength: 3 }),
      accept: fc.array(namedRuleArb, { maxLength: 3 }),
    });
    let denied = 0;
    fc.assert(
      fc.property(arb, ({ verb, pod, controller, name, deny, accept }) => {
        if (decide(deny, accept, [verb, pod]).result !== "deny") return;
        denied += 1;
        expect(decide(deny, accept, [verb, `${controller}/${name}`]).result).toBe("deny");
      }),
      params(3),
    );
    expect(denied).toBeGreaterThan(RUNS / 4);
  });
});
