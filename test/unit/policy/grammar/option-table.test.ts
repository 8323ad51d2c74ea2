/**
 * Compiled option tables: globals, locked options, command scopes.
 */
import { describe, expect, it } from "vitest";
import { compileGrammar, findScope } from "../../../../src/policy/grammar/option-table.js";
import type { GrammarSpec } from "../../../../src/policy/grammar/types.js";
import { azSpec, kubectl, kubectlSpec } from "../../../support/grammars.js";
import { rejectionOf } from "../../../support/policy-helpers.js";

describe("compileGrammar", () => {
  it("a locked option missing from the table is added as a value-taking global", () => {
    const g = compileGrammar(kubectlSpec, ["--user"]);
    expect(g.global.byLong.get("--user")).toEqual({ name: "--user", value: "required", repeatable: false });
    for (const scope of g.scopes) expect(scope.table.byLong.has("--user")).toBe(true);
  });

  it("a locked option declared only in a command scope is not duplicated as a global", () => {
    const g = compileGrammar(kubectlSpec, ["--output"]);
    expect(g.global.byLong.has("--output")).toBe(false);
    expect(findScope(g, ["get"])?.table.byLong.get("--output")?.short).toBe("-o");
  });

  it("a locked option declared only in a scope is still refused elsewhere under its name", () => {
    const g = compileGrammar(kubectlSpec, ["--output"]);
    expect(rejectionOf(g, ["logs", "x", "--output=json"]).kind).toBe("locked-option");
  });

  it("the locked set and lower-cased forbidden value prefixes are kept", () => {
    const g = compileGrammar({ ...azSpec, forbiddenValuePrefixes: ["FILE://", "@"] }, ["--subscription"]);
    expect([...g.locked]).toEqual(["--subscription"]);
    expect(g.forbiddenValuePrefixes).toEqual(["file://", "@"]);
    expect(g.parser).toBe("argparse");
  });

  it("long names are sorted, so prefix expansion does not depend on declaration order", () => {
    expect(compileGrammar(azSpec, []).global.longNames).toEqual([...azSpec.options.map((o) => o.name)].sort());
  });

  it("short aliases are indexed with their dash", () => {
    const g = compileGrammar(azSpec, []);
    expect(g.global.byShort.get("-o")?.name).toBe("--output");
    expect(g.global.byShort.has("o")).toBe(false);
  });

  it("every scope includes the globals and its own options; a scope option shadows a global short", () => {
    const spec: GrammarSpec = {
      parser: "pflag",
      forbiddenValuePrefixes: [],
      options: [{ name: "--file", short: "-f", value: "required", repeatable: false }],
      commands: [{ path: ["logs"], options: [{ name: "--follow", short: "-f", value: "none", repeatable: false }] }],
    };
    const g = compileGrammar(spec, []);
    expect(g.global.byShort.get("-f")?.name).toBe("--file");
    expect(findScope(g, ["logs"])?.table.byShort.get("-f")?.name).toBe("--follow");
    expect(findScope(g, ["logs"])?.table.byLong.has("--file")).toBe(true);
  });
});

describe("findScope", () => {
  const g = kubectl();

  it("the longest declared path that prefixes the positionals wins, whatever the declaration order", () => {
    const spec: GrammarSpec = {
      ...kubectlSpec,
      commands: [
        { path: ["rollout"], options: [{ name: "--a", value: "none", repeatable: false }] },
        { path: ["rollout", "status"], options: [{ name: "--b", value: "none", repeatable: false }] },
      ],
    };
    const scoped = compileGrammar(spec, []);
    expect(scoped.scopes.map((s) => s.path.join(" "))).toEqual(["rollout status", "rollout"]);
    expect(findScope(scoped, ["rollout", "status", "x"])?.path).toEqual(["rollout", "status"]);
    expect(findScope(scoped, ["rollout", "history"])?.path).toEqual(["rollout"]);
  });

  it("a scope matches whole tokens only and needs its full path", () => {
    expect(findScope(g, ["rollout"])).toBeUndefined();
    expect(findScope(g, ["gets"])).toBeUndefined();
    expect(findScope(g, ["pods", "get"])).toBeUndefined();
    expect(findScope(g, ["get", "pods"])?.path).toEqual(["get"]);
  });
});
