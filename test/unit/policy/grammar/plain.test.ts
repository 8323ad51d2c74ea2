/**
 * The plain family: no parser model; docs/policy.md "plain".
 */
import { describe, expect, it } from "vitest";
import { compileGrammar } from "../../../../src/policy/grammar/option-table.js";
import { plainSpec } from "../../../support/grammars.js";
import { canon, canonicalOf, rejectionOf } from "../../../support/policy-helpers.js";

const p = compileGrammar({ ...plainSpec, forbiddenValuePrefixes: ["file://"] }, ["--context", "--as-group"]);

describe("plain", () => {
  it("the argv is the canonical argv: every token is a positional, in order", () => {
    const argv = ["plan", "-out=x", "--", "-lock=false", "-"];
    expect(canonicalOf(p, argv)).toEqual({ positionals: argv, options: [], hasTail: false, tail: [] });
  });

  it.each([["--context=prod"], ["--context"], ["--cont=prod"], ["-context=prod"], ["-c"], ["--as_group=x"], ["-as_g"]])(
    "a locked option is refused under the spelling %s",
    (token) => {
      expect(rejectionOf(p, ["plan", token])).toMatchObject({ kind: "locked-option", token, index: 1 });
    },
  );

  it("a locked spelling is refused after -- too (plain does not know what -- means)", () => {
    expect(rejectionOf(p, ["plan", "--", "--context=x"]).kind).toBe("locked-option");
  });

  it("a longer name than a locked option is not that option", () => {
    expect(canon(p, ["plan", "--contexts=x", "--as-groups"])).toEqual(["plan", "--contexts=x", "--as-groups"]);
  });

  it("- and -- are not option names", () => {
    expect(canon(p, ["-", "--"])).toEqual(["-", "--"]);
  });

  it("an option name with a space or non-ASCII character is refused", () => {
    expect(rejectionOf(p, ["plan", "--a b=1"]).kind).toBe("argv-rejected");
    expect(rejectionOf(p, ["plan", "-\u00e9"]).kind).toBe("argv-rejected");
  });

  it("a value with a space is fine", () => {
    expect(canon(p, ["plan", "-var=a b"])).toEqual(["plan", "-var=a b"]);
  });

  it("NUL bytes, look-alike dashes and forbidden value prefixes are refused", () => {
    expect(rejectionOf(p, ["plan", "a\0"]).kind).toBe("argv-rejected");
    expect(rejectionOf(p, ["plan", "\u2014context"]).kind).toBe("argv-rejected");
    expect(rejectionOf(p, ["plan", "-var-file=FILE://x"]).kind).toBe("forbidden-value");
  });

  it("a rule may name a locked option (rule mode is lenient)", () => {
    expect(canon(p, ["plan", "--context=x"], "rule")).toEqual(["plan", "--context=x"]);
  });
});
