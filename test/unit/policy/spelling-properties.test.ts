/**
 * P5 spelling invariance, continued (threats.md §4): requests a real CLI reads
 * the same way decide alike. fast-check with fixed seeds, 1,000 runs each
 * (`npm run test:properties`; `npm test` runs 250, test/support/property-runs.ts).
 *
 *   P5a kubectl resource types: singular, plural, kind, short name, case,
 *       `type/name` and `a,b` lists decide like the plural spelling, and a deny
 *       of any one listed type denies the call; a deny of any one (type, name)
 *       denies it in any order and form; `logs`/`exec` read POD or TYPE/NAME alike;
 *       a sub-command alias (`create deploy`, `set sa`) in a rule or a call
 *       decides like the name kubectl lists first.
 *   P5b aws parameter carriers: a call with `--cli-input-json` (any prefix,
 *       either form) is denied whenever some call it could encode is denied.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import type { PolicyDecision, ProviderPolicyContext, ResourceTypeSpec } from "../../../src/policy/types.js";
import { AWS_LOCKED, awsSpec, context, KUBECTL_LOCKED, kubectlSpec } from "../../support/grammars.js";
import { ruleList } from "../../support/policy-helpers.js";
import { propertyRuns } from "../../support/property-runs.js";

const SEED = 20261201;
const RUNS = propertyRuns(1000);
const params = (offset: number): fc.Parameters<unknown> => ({
  seed: SEED + offset,
  numRuns: RUNS,
  plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })],
});

function decide(ctx: ProviderPolicyContext, deny: readonly string[], accept: readonly string[], argv: readonly string[]): PolicyDecision {
  return evaluatePolicy(compilePolicy(ctx, { shared: ruleList([...deny], [...accept]) }), argv).decision;
}

function summary(decision: PolicyDecision): { result: string; source: string; rule: unknown } {
  return { result: decision.result, source: decision.source, rule: "rule" in decision ? decision.rule : null };
}

describe("P5a kubectl resource type spellings", () => {
  const TYPES: Record<string, readonly string[]> = {
    pods: ["pod", "po", "Pod"],
    secrets: ["secret", "Secret"],
    configmaps: ["configmap", "cm", "ConfigMap"],
    deployments: ["deployment", "deploy", "Deployment"],
  };
  const PLURALS = Object.keys(TYPES);
  const resourceTypes: ResourceTypeSpec = {
    verbs: [["get"], ["describe"], ["rollout", "status"]],
    types: TYPES,
    named: { default: "pods", verbs: [["logs"], ["exec"]] },
  };
  const ctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED, { resourceTypes });
  const VERBS = [["get"], ["describe"], ["rollout", "status"]] as const;
  const NAMES = ["x", "db", "web"] as const;

  /** Any spelling of a plural: itself or an alias, in any letter case. */
  const spellingArb = (plural: string): fc.Arbitrary<string> =>
    fc
      .tuple(fc.constantFrom(plural, ...(TYPES[plural] ?? [])), fc.constantFrom("as-is", "lower", "upper"))
      .map(([word, style]) => (style === "lower" ? word.toLowerCase() : style === "upper" ? word.toUpperCase() : word));

  /** A call: verb, types (plural), names; written as a list (`a,b [name]`) or as `type/name` operands. */
  const callArb: fc.Arbitrary<Call> = fc.record({
    verb: fc.constantFrom(...VERBS),
    types: fc.uniqueArray(fc.constantFrom(...PLURALS), { minLength: 1, maxLength: 3 }),
    names: fc.array(fc.constantFrom(...NAMES), { minLength: 3, maxLength: 3 }),
    slash: fc.boolean(),
    named: fc.boolean(),
    namespace: fc.boolean(),
  });

  interface Call {
    readonly verb: readonly string[];
    readonly types: readonly string[];
    readonly names: readonly string[];
    readonly slash: boolean;
    readonly named: boolean;
    readonly namespace: boolean;
  }

  function write(call: Call, spelled: readonly string[]): string[] {
    const operands = call.slash
      ? spelled.map((type, i) => `${type}/${call.names[i] as string}`)
      : [spelled.join(","), ...(call.named ? [call.names[0] as string] : [])];
    return [...call.verb, ...operands, ...(call.namespace ? ["-n", "kube-system"] : [])];
  }

  /** Literal rules about these types in random spellings, and a bare verb. */
  const ruleArb = fc.oneof(
    fc.constantFrom(...VERBS).map((verb) => verb.join(" ")),
    fc
      .tuple(fc.constantFrom(...VERBS), fc.constantFrom(...PLURALS).chain(spellingArb), fc.option(fc.constantFrom(...NAMES), { nil: undefined }))
      .map(([verb, type, name]) => [...verb, type, ...(name === undefined ? [] : [name])].join(" ")),
  );

  it("a call decides like its plural spelling, whatever the rules' spellings", () => {
    let decidedByRule = 0;
    const arb = callArb.chain((call) =>
      fc.record({
        call: fc.constant(call),
        spelled: fc.tuple(...call.types.map(spellingArb)),
        deny: fc.array(ruleArb, { maxLength: 3 }),
        accept: fc.array(ruleArb, { maxLength: 4 }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ call, spelled, deny, accept }) => {
        const written = summary(decide(ctx, deny, accept, write(call, spelled)));
        const plural = summary(decide(ctx, deny, accept, write(call, call.types)));
        expect(written).toEqual(plural);
        if (plural.rule !== null && spelled.some((word, i) => word !== call.types[i])) decidedByRule += 1;
      }),
      params(1),
    );
    expect(decidedByRule).toBeGreaterThan(RUNS / 4);
  });

  it("a deny rule naming any one listed type, in any spelling, denies the call whatever the accepts", () => {
    const arb = callArb.chain((call) =>
      fc.record({
        call: fc.constant(call),
        spelled: fc.tuple(...call.types.map(spellingArb)),
        denied: fc.nat({ max: call.types.length - 1 }).chain((at) => spellingArb(call.types[at] as string)),
        accept: fc.array(ruleArb, { maxLength: 4 }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ call, spelled, denied, accept }) => {
        const rule = [...call.verb, denied].join(" ");
        expect(decide(ctx, [rule], [...accept, call.verb.join(" ")], write(call, spelled))).toMatchObject({ result: "deny", rule: { text: rule } });
      }),
      params(2),
    );
  });

  it("a deny rule naming any one (type, name) of a call denies it, whatever the names' order and the form", () => {
    const arb = fc
      .record({
        verb: fc.constantFrom(...VERBS),
        types: fc.uniqueArray(fc.constantFrom(...PLURALS), { minLength: 1, maxLength: 3 }),
        names: fc.shuffledSubarray([...NAMES, "api", "prod-db"], { minLength: 1, maxLength: 4 }),
        slash: fc.boolean(),
      })
      .chain((call) =>
        fc.record({
          call: fc.constant(call),
          spelled: fc.tuple(...call.types.map(spellingArb)),
          at: fc.tuple(fc.nat({ max: call.types.length - 1 }), fc.nat({ max: call.names.length - 1 })),
          ruleType: fc.constantFrom(...call.types).chain(spellingArb),
        }),
      );
    fc.assert(
      fc.property(arb, ({ call, spelled, at: [typeAt, nameAt], ruleType }) => {
        const operands = call.slash ? spelled.flatMap((type) => call.names.map((name) => `${type}/${name}`)) : [spelled.join(","), ...call.names];
        const denied = call.types[typeAt] as string;
        const rule = [...call.verb, spellingFor(denied, ruleType), call.names[nameAt] as string].join(" ");
        expect(decide(ctx, [rule], [call.verb.join(" ")], [...call.verb, ...operands])).toMatchObject({ result: "deny", rule: { text: rule } });
      }),
      params(4),
    );
  });

  /** The rule's spelling of `plural`: `candidate` when it spells that type, else the plural itself. */
  function spellingFor(plural: string, candidate: string): string {
    const lower = candidate.toLowerCase();
    return lower === plural || (TYPES[plural] ?? []).some((alias) => alias.toLowerCase() === lower) ? candidate : plural;
  }

  it("logs and exec decide alike on POD, pod/POD and any spelling of TYPE/NAME", () => {
    const arb = fc
      .record({
        verb: fc.constantFrom("logs", "exec"),
        plural: fc.constantFrom(...PLURALS),
        name: fc.constantFrom(...NAMES),
        rest: fc.constantFrom([], ["-c", "app"], ["--", "sh"]),
        deny: fc.array(ruleArb, { maxLength: 2 }),
        accept: fc.array(fc.oneof(ruleArb, fc.constantFrom("logs", "exec", "logs pods", "exec pod/x", "logs deploy/db")), { maxLength: 3 }),
      })
      .chain((call) => fc.record({ call: fc.constant(call), spelled: spellingArb(call.plural), rule: spellingArb(call.plural), plain: fc.boolean() }));
    fc.assert(
      fc.property(arb, ({ call, spelled, rule, plain }) => {
        const operand = plain && call.plural === "pods" ? call.name : `${spelled}/${call.name}`;
        const argv = [call.verb, operand, ...call.rest];
        const canonical = [call.verb, `${call.plural}/${call.name}`, ...call.rest];
        expect(summary(decide(ctx, call.deny, call.accept, argv))).toEqual(summary(decide(ctx, call.deny, call.accept, canonical)));
        const denyRule = `${call.verb} ${rule}/${call.name}`;
        expect(decide(ctx, [denyRule], [call.verb], argv)).toMatchObject({ result: "deny", rule: { text: denyRule } });
      }),
      params(5),
    );
  });
});

describe("P5a kubectl sub-command aliases", () => {
  /** Parent command → first name → its aliases, as kubectl lists them. */
  const SUBCOMMANDS = {
    create: { deployment: ["deploy"], configmap: ["cm"], service: ["svc"], secret: [] },
    set: { serviceaccount: ["sa"], image: [] },
  } as const;
  const resourceTypes: ResourceTypeSpec = {
    verbs: [
      ["set", "serviceaccount"],
      ["set", "image"],
    ],
    types: { deployments: ["deployment", "deploy"] },
    trailing: [["set", "serviceaccount"]],
    command_aliases: SUBCOMMANDS,
  };
  const ctx = context("kubectl", kubectlSpec, KUBECTL_LOCKED, { resourceTypes });
  const commandArb = fc.constantFrom(...Object.entries(SUBCOMMANDS).flatMap(([parent, names]) => Object.keys(names).map((name) => [parent, name] as const)));
  /** The first name of a sub-command or one of its aliases. */
  const spell = ([parent, name]: readonly [string, string]): fc.Arbitrary<string> =>
    fc.constantFrom(name, ...((SUBCOMMANDS as Record<string, Record<string, readonly string[]>>)[parent]?.[name] ?? []));
  const operandsArb = fc.constantFrom(["web"], ["deploy/web", "robot"], ["ns"], ["cm", "--dry-run=client"]);
  const ruleArb = fc.oneof(
    fc.constantFrom("create", "set"),
    fc
      .tuple(
        commandArb.chain((command) => fc.tuple(fc.constant(command[0]), spell(command))),
        fc.option(operandsArb, { nil: undefined }),
      )
      .map(([[parent, word], operands]) => [parent, word, ...(operands ?? []).filter((operand) => !operand.startsWith("-"))].join(" ")),
  );

  it("a call and a rule decide alike whichever alias of a sub-command either spells", () => {
    let decidedByRule = 0;
    const arb = commandArb.chain((command) =>
      fc.record({
        command: fc.constant(command),
        word: spell(command),
        operands: operandsArb,
        deny: fc.array(ruleArb, { maxLength: 3 }),
        accept: fc.array(ruleArb, { maxLength: 4 }),
      }),
    );
    fc.assert(
      fc.property(arb, ({ command: [parent, name], word, operands, deny, accept }) => {
        const written = summary(decide(ctx, deny, accept, [parent, word, ...operands]));
        const first = summary(decide(ctx, deny, accept, [parent, name, ...operands]));
        expect(written).toEqual(first);
        if (first.rule !== null && word !== name) decidedByRule += 1;
      }),
      params(6),
    );
    expect(decidedByRule).toBeGreaterThan(RUNS / 8);
  });

  it("a deny rule spelling the call's sub-command by any alias denies it whatever the accepts", () => {
    const arb = commandArb.chain((command) =>
      fc.record({ command: fc.constant(command), word: spell(command), ruleWord: spell(command), accept: fc.array(ruleArb, { maxLength: 4 }) }),
    );
    fc.assert(
      fc.property(arb, ({ command: [parent], word, ruleWord, accept }) => {
        const rule = `${parent} ${ruleWord}`;
        expect(decide(ctx, [rule], [...accept, parent], [parent, word, "web"])).toMatchObject({ result: "deny", rule: { text: rule } });
      }),
      params(7),
    );
  });
});

describe("P5b aws parameter carriers", () => {
  const CARRIERS = ["--cli-input-json", "--cli-input-yaml"];
  const ctxWith = (forbiddenArgs: readonly string[]): ProviderPolicyContext =>
    context("aws", awsSpec, AWS_LOCKED, { parameterCarriers: CARRIERS, forbiddenArgs });
  const PATHS = [
    ["ec2", "run-instances"],
    ["s3api", "put-object"],
    ["iam", "create-user"],
  ] as const;
  const OPTIONS = ["--user-data", "--instance-type", "--count", "--key", "--tags"] as const;
  const VALUES = ["eA==", "p4d.24xlarge", "1", "k"] as const;

  /** Every spelling argparse reads as a carrier: each unambiguous prefix (from `--cli-i`) up to the full name. */
  const carrierSpellingArb = fc
    .constantFrom(...CARRIERS)
    .chain((name) => fc.integer({ min: "--cli-i".length, max: name.length }).map((length) => name.slice(0, length)));

  const optionArb = fc.tuple(fc.constantFrom(...OPTIONS), fc.constantFrom(...VALUES));
  const ruleArb = fc.oneof(
    fc.constantFrom(...PATHS).map((path) => path.join(" ")),
    fc
      .tuple(fc.constantFrom(...PATHS), optionArb, fc.boolean())
      .map(([path, [option, value], withValue]) => [...path, option, ...(withValue ? [value] : [])].join(" ")),
    fc.constantFrom("ec2", "s3api", "iam", "ec2 describe-instances --filters"),
  );

  it("a carrier call is denied whenever a call with the options it could carry is denied", () => {
    let carrierDecided = 0;
    const arb = fc.record({
      path: fc.constantFrom(...PATHS),
      encoded: fc.array(optionArb, { minLength: 1, maxLength: 3 }),
      explicit: fc.array(optionArb, { maxLength: 2 }),
      carrier: carrierSpellingArb,
      equals: fc.boolean(),
      output: fc.boolean(),
      deny: fc.array(ruleArb, { maxLength: 4 }),
      accept: fc.array(ruleArb, { maxLength: 3 }),
      forbidden: fc.subarray(["--debug", "--user-data", "--tags"], { maxLength: 2 }),
    });
    fc.assert(
      fc.property(arb, ({ path, encoded, explicit, carrier, equals, output, deny, accept, forbidden }) => {
        const ctx = ctxWith(forbidden);
        const globals = output ? ["--output", "json"] : [];
        const document = JSON.stringify(Object.fromEntries(encoded));
        const carried = equals ? [`${carrier}=${document}`] : [carrier, document];
        const withCarrier = [...path, ...explicit.flat(), ...carried, ...globals];
        const spelledOut = [...path, ...explicit.flat(), ...encoded.flat(), ...globals];
        const plain = decide(ctx, deny, accept, spelledOut);
        const viaCarrier = decide(ctx, deny, accept, withCarrier);
        if (plain.result === "deny") {
          expect(viaCarrier.result).toBe("deny");
          if (decide(ctx, deny, accept, [...path, ...explicit.flat(), ...globals]).result !== "deny") carrierDecided += 1;
        }
      }),
      params(3),
    );
    expect(carrierDecided).toBeGreaterThan(RUNS / 10);
  });
});
