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

/** CPU time (user + system, robust to other processes' load) of `run`, in milliseconds. */
function cpuMillis(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const repeat = (word: string, count: number, separator: string): string => Array.from({ length: count }, () => word).join(separator);

describe("an over-long call is refused before its readings are built", () => {
  it("the reproduction's shape (32,000 types × 1,000 names) is denied with 'split the call' in bounded work", () => {
    const argv = ["get", repeat("a", 32_000, ","), ...Array.from({ length: 1000 }, () => "n")];
    const policy = compilePolicy(kubectl, { shared: ruleList(["get secrets prod-db"], ["get"]) });
    let reason = "";
    // The old reading allocated 32 million readings (~15 s, ~1.9 GB); counting first costs a scan of the argv.
    expect(cpuMillis(() => (reason = evaluatePolicy(policy, argv).decision.reason))).toBeLessThan(500);
    expect(reason).toContain("names 32000000 resources");
    expect(reason).toContain("split the call");
  });

  it("the count includes the any-object readings and is refused before any reading is built, whatever the form", () => {
    const lookups = { count: 0 };
    const counting = new Map(table.plural);
    const get = counting.get.bind(counting);
    counting.get = (key: string) => ((lookups.count += 1), get(key));
    const watched = { ...table, plural: counting };
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
