/**
 * Reading a kubectl call per type and name costs work bounded by the call's
 * length, not by the product of its lists (red-team F3: `get a,a,…(32,000)
 * n ×1,000` built 32 million readings before refusing them).
 */
import { describe, expect, it } from "vitest";
import { compilePolicy } from "../../../src/policy/compile.js";
import { evaluatePolicy } from "../../../src/policy/evaluate.js";
import { canonicalCommand, compileResourceTypes } from "../../../src/policy/resource-types.js";
import { MAX_RESOURCE_VIEWS, resourceViews } from "../../../src/policy/resource-views.js";
import { bundledPolicyContext, ruleList } from "../../support/policy-helpers.js";

const kubectl = bundledPolicyContext("kubectl");
const table = compileResourceTypes(kubectl.settings.resourceTypes ?? { verbs: [], types: {} });

/** `types` whose plural table counts its look-ups: building one reading looks its type up once (canonicalType). */
function countingLookups(types: typeof table): { readonly table: typeof table; readonly lookups: { count: number } } {
  const lookups = { count: 0 };
  const plural = new Map(types.plural);
  const get = plural.get.bind(plural);
  plural.get = (key: string) => ((lookups.count += 1), get(key));
  return { table: { ...types, plural }, lookups };
}

const repeat = (word: string, count: number, separator: string): string => Array.from({ length: count }, () => word).join(separator);

describe("an over-long call is refused before its readings are built", () => {
  it("the reproduction's shape (32,000 types × 1,000 names) is denied with 'split the call' in bounded work", () => {
    const argv = ["get", repeat("a", 32_000, ","), ...Array.from({ length: 1000 }, () => "n")];
    const compiled = compilePolicy(kubectl, { shared: ruleList(["get secrets prod-db"], ["get"]) });
    const watched = countingLookups(compiled.resourceTypes ?? table);
    const policy = { ...compiled, resourceTypes: watched.table };
    // Work counted, not timed: the old reading built 32 million readings (~15 s, ~1.9 GB), one type look-up each;
    // counting first costs a scan of the argv and builds none.
    const reason = evaluatePolicy(policy, argv).decision.reason;
    expect(watched.lookups.count).toBe(0);
    expect(reason).toContain("names 32000000 resources");
    expect(reason).toContain("split the call");
    // The look-ups are what reading costs: a call within the limit makes them (a reading per type and name).
    evaluatePolicy(policy, ["get", "secrets,pods", "a", "b"]);
    expect(watched.lookups.count).toBeGreaterThanOrEqual(4);
  });

  it("the count includes the any-object readings and is refused before any reading is built, whatever the form", () => {
    const { table: watched, lookups } = countingLookups(table);
    const overLimit = [
      ["get", repeat("pods", 65, ",")],
      ["get", "pods", ...Array.from({ length: 65 }, (_, i) => `p${i}`)],
      ["get", repeat("pod/x", 40, ","), repeat("secret/y", 40, ",")],
      ["get", "secrets,pods", ...Array.from({ length: 32 }, (_, i) => `p${i}`), "--selector=app=x"],
    ];
    for (const positionals of overLimit) {
      const options = positionals.filter((word) => word.startsWith("--"));
      const words = positionals.filter((word) => !word.startsWith("--"));
      expect(() => resourceViews(words, watched, { dropGroup: true, limit: MAX_RESOURCE_VIEWS, anyObjectFrom: options })).toThrow(/split the call/);
    }
    expect(lookups.count).toBe(0);
    expect(
      resourceViews(["get", "pods", ...Array.from({ length: 64 }, (_, i) => `p${i}`)], watched, { dropGroup: true, limit: MAX_RESOURCE_VIEWS }),
    ).toHaveLength(64);
  });

  it("sub-command aliases are looked up only right after a parent path, not once per word", () => {
    const lookups = { count: 0 };
    const subcommands = new Map([...table.subcommands].map(([parent, names]) => [parent, names]));
    const get = subcommands.get.bind(subcommands);
    subcommands.get = (key: string) => ((lookups.count += 1), get(key));
    const argv = ["create", "deploy", ...Array.from({ length: 1022 }, () => "x".repeat(200))];
    expect(canonicalCommand(argv, { ...table, subcommands })?.slice(0, 2)).toEqual(["create", "deployment"]);
    expect(lookups.count).toBeLessThanOrEqual(table.subcommandDepth);
  });
});
