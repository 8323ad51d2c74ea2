/**
 * `/pattern/flags` rules: docs/policy.md "Regex rules".
 */
import { describe, expect, it } from "vitest";
import { compileRegexRule, isRegexRule } from "../../../src/policy/regex-rule.js";

describe("isRegexRule", () => {
  it("a rule is a regex when it starts with / and has a closing /", () => {
    expect(isRegexRule("/pods/")).toBe(true);
    expect(isRegexRule("/pods/imsx")).toBe(true);
    expect(isRegexRule("/a/b/")).toBe(true);
  });

  it("a lone slash or a rule not starting with / is a literal rule", () => {
    expect(isRegexRule("/")).toBe(false);
    expect(isRegexRule("get /pods/")).toBe(false);
    expect(isRegexRule("pods/")).toBe(false);
  });
});

describe("compileRegexRule: flags", () => {
  it.each(["", "i", "m", "s", "x", "imsx", "xsmi"])("flags %j from imsx are accepted", (flags) => {
    expect(compileRegexRule(`/a/${flags}`, "accept").test("a")).toBe(true);
  });

  it.each(["g", "u", "y", "d", "v", "I", "ig"])("flags imsx only: %j is refused", (flags) => {
    expect(() => compileRegexRule(`/a/${flags}`, "accept")).toThrow(/is not allowed; use only i, m, s and x/u);
  });

  it("a repeated flag is refused", () => {
    expect(() => compileRegexRule("/a/ixi", "accept")).toThrow(/"i" is repeated/u);
  });

  it("i, m and s map to the engine's flags; x is applied by Torii before compiling", () => {
    const regex = compileRegexRule("/a/imsx", "accept");
    expect(regex.flags).toBe("ims");
    expect(compileRegexRule("/a/", "accept").flags).toBe("");
  });

  it("the last / separates the pattern from the flags, so a pattern may contain /", () => {
    expect(compileRegexRule("/s3:\\/\\/b/", "accept").source).toBe("s3:\\/\\/b");
    expect(compileRegexRule("/a/b/i", "accept").test("A/B")).toBe(true);
  });
});

describe("compileRegexRule: x mode", () => {
  it("whitespace outside classes is ignored", () => {
    const regex = compileRegexRule("/^ get \\s+ pods $/x", "accept");
    expect(regex.source).toBe("^get\\s+pods$");
    expect(regex.test("get pods")).toBe(true);
  });

  it("a # comment runs to the end of the line", () => {
    const regex = compileRegexRule("/get # the verb\n pods # the resource/x", "accept");
    expect(regex.source).toBe("getpods");
  });

  it("whitespace and # inside a character class are kept", () => {
    expect(compileRegexRule("/[ #]x/x", "accept").source).toBe("[ #]x");
    expect(compileRegexRule("/get[ ]pods/x", "accept").test("get pods")).toBe(true);
  });

  it("an escaped space and an escaped # are literal characters", () => {
    expect(compileRegexRule("/get\\ pods/x", "accept").test("get pods")).toBe(true);
    expect(compileRegexRule("/a\\#b/x", "accept").test("a#b")).toBe(true);
    expect(compileRegexRule("/[\\ ]/x", "accept").test(" ")).toBe(true);
  });

  it("through the linear-time engine: # and spaces in classes match, escaped ones outside do, comments do not", () => {
    const rule = compileRegexRule("/^ get [ #]+ \\# \\  x  # a comment with [ and \\ in it/x", "accept");
    expect(rule.source).toBe("^get[ #]+# x");
    expect(rule.test("get # # x")).toBe(true);
    expect(rule.test("get## x")).toBe(true);
    expect(rule.test("get # #x")).toBe(false);
    expect(compileRegexRule("/^[\\]# ]+$/x", "accept").test("] #")).toBe(true);
    expect(compileRegexRule("/^a\\\\ b$/x", "accept").test("a\\b")).toBe(true);
  });

  it("other escapes are copied unchanged", () => {
    expect(compileRegexRule("/\\[ a \\]/x", "accept").source).toBe("\\[a\\]");
    expect(compileRegexRule("/\\[ a \\]/x", "accept").test("[a]")).toBe(true);
  });

  it("without x whitespace and # are part of the pattern", () => {
    expect(compileRegexRule("/a b#c/", "accept").source).toBe("a b#c");
  });
});

describe("compileRegexRule: invalid patterns", () => {
  it("invalid regex syntax is an error with a readable message", () => {
    expect(() => compileRegexRule("/(pods/", "accept")).toThrow(/^invalid regular expression: /u);
    expect(() => compileRegexRule("/[z-a]/", "accept")).toThrow(/invalid regular expression/u);
  });

  it("escapes are strict (u mode), as in Rust's regex: an unknown escape is an error", () => {
    expect(() => compileRegexRule("/\\q/", "accept")).toThrow(/invalid regular expression/u);
  });

  it("an empty pattern is an error", () => {
    expect(() => compileRegexRule("//", "accept")).toThrow("the pattern is empty");
    expect(() => compileRegexRule("//i", "accept")).toThrow("the pattern is empty");
  });

  it("a pattern that is empty once x-mode whitespace and comments are removed is an error, not match-everything", () => {
    expect(() => compileRegexRule("/ /x", "accept")).toThrow(/the pattern is empty/u);
    expect(() => compileRegexRule("/# todo: restrict later/x", "accept")).toThrow(/the pattern is empty/u);
    expect(compileRegexRule("/ # todo/", "accept").test("a # todo")).toBe(true);
  });
});

describe("compileRegexRule: matching", () => {
  it("the search is unanchored", () => {
    expect(compileRegexRule("/pods/", "accept").test("get pods -w")).toBe(true);
  });

  it("repeated tests give the same answer (no global state)", () => {
    const regex = compileRegexRule("/pods/", "accept");
    expect([regex.test("get pods"), regex.test("get pods"), regex.test("get pods")]).toEqual([true, true, true]);
  });
});
