/**
 * The linear-time engine behind `/pattern/flags` rules (docs/policy.md "Regex
 * rules: engine"): what it refuses at load, by name, and each place where RE2
 * and JavaScript read the same text differently, decided for JavaScript's
 * meaning (the meaning rules have always had) or failed closed.
 */
import { describe, expect, it } from "vitest";
import { JS_WHITE_SPACE } from "../../../src/policy/regex-class.js";
import { compileRegexRule } from "../../../src/policy/regex-rule.js";

const accept = (text: string) => compileRegexRule(text, "accept");
const deny = (text: string) => compileRegexRule(text, "deny");

describe("refused at load, with the construct named", () => {
  it.each([
    ["/(a)\\1/", /a backreference \(\\1…\)/u],
    ["/(a)(b)\\2/i", /a backreference/u],
    ["/(?<n>a)\\k<n>/", /a named backreference \(\\k<name>\)/u],
    ["/a(?=b)/", /a lookahead \(\?=…\)/u],
    ["/a(?!b)/", /a negative lookahead \(\?!…\)/u],
    ["/(?<=a)b/", /a lookbehind \(\?<=…\)/u],
    ["/(?<!a)b/", /a negative lookbehind \(\?<!…\)/u],
    ["/x(?:(?=a)|b)/x", /a lookahead/u],
  ])("%s", (rule, named) => {
    expect(() => accept(rule)).toThrow(named);
    expect(() => accept(rule)).toThrow(/^invalid regular expression: .*linear-time engine.*\(error parsing regexp: /u);
  });

  it("a repetition count above RE2's 1,000 is refused, nested ones past its size limit too", () => {
    expect(() => accept("/a{1001}/")).toThrow(/repetition count above 1000.*invalid repeat count/u);
    expect(() => accept("/((a{100}){100}){100}/")).toThrow(/repetition count above 1000/u);
    expect(accept("/^a{400}$/").test("a".repeat(400))).toBe(true);
  });

  it("a rule compiling past 500 engine instructions is refused: linear time is program size × argv length", () => {
    expect(() => accept("/(?:\\p{L}|\\p{N}){1000}x/i")).toThrow(/compiles to \d+ engine instructions, above the limit of 500/u);
    expect(() => deny("/\\S{600}/")).toThrow(/above the limit of 500/u);
    expect(accept("/^[0-9a-f]{64}$/").test("ab".repeat(32))).toBe(true);
    const resources = Array.from({ length: 60 }, (_, i) => `resource-${String(i)}`).join("|");
    expect(accept(`/^get (?:${resources})( |$)/`).test("get resource-42 -o json")).toBe(true);
  });

  it("a Unicode property RE2 does not know is refused with the engine's words", () => {
    expect(() => accept("/\\p{Script=Greek}/")).toThrow(/linear-time regex engine refuses this pattern \(error parsing regexp: /u);
  });

  it("\\P{…} under i is refused (the engines fold its complement differently) and [^\\p{…}] is offered", () => {
    expect(() => accept("/\\P{Ll}/i")).toThrow(/^unsupported regular expression: \\P\{Ll\} with the i flag.*write \[\^\\p\{Ll\}\] instead/u);
    expect(() => accept("/[\\P{Ll}x]/i")).toThrow(/\\P\{Ll\} with the i flag/u);
    expect(accept("/\\P{Ll}/").test("A")).toBe(true);
    expect(accept("/^[^\\p{Ll}]$/i").test("A")).toBe(false);
  });

  it.each(["/(?i)get/", "/\\z/", "/a{,5}/", "/\\pL/", "/[[:alpha:]]/", "/\\Qa.b\\E/", "/(?P<n>a)/"])(
    "RE2-only syntax %s stays invalid: rules are written in JavaScript's u-mode syntax",
    (rule) => {
      expect(() => accept(rule)).toThrow(/^invalid regular expression: /u);
    },
  );
});

describe("JavaScript's meaning is kept where RE2 reads the text differently", () => {
  it("the \\s table is exactly V8's \\s over the BMP and the first astral planes", () => {
    const inTable = (c: number): boolean => JS_WHITE_SPACE.ranges.some(([from, to]) => c >= from && c <= to);
    const mismatches: number[] = [];
    for (let c = 0; c <= 0x2ffff; c += 1) if (/^\s$/u.test(String.fromCodePoint(c)) !== inTable(c)) mismatches.push(c);
    expect(mismatches).toEqual([]);
  });

  it("\\s and \\S are Unicode white space, in and out of classes (RE2's are ASCII)", () => {
    for (const space of ["\u00a0", "\u2003", "\ufeff", "\u000b", "\u3000"]) {
      expect(accept("/a\\sb/").test(`a${space}b`)).toBe(true);
      expect(accept("/a[\\s]b/").test(`a${space}b`)).toBe(true);
      expect(accept("/a\\Sb/").test(`a${space}b`)).toBe(false);
      expect(accept("/a[\\S]b/").test(`a${space}b`)).toBe(false);
      expect(accept("/a[^\\s]b/").test(`a${space}b`)).toBe(false);
    }
    expect(accept("/a[\\Sx]b/").test("a😀b")).toBe(true);
  });

  it("without s a dot matches neither \\n nor \\r, U+2028, U+2029; with s it matches all", () => {
    for (const terminator of ["\n", "\r", "\u2028", "\u2029"]) {
      expect(accept("/a.b/").test(`a${terminator}b`)).toBe(false);
      expect(accept("/a.b/s").test(`a${terminator}b`)).toBe(true);
    }
    expect(accept("/^.$/").test("😀")).toBe(true);
  });

  it("[] never matches and [^] matches any character (RE2 would read a literal ])", () => {
    expect(accept("/[]/").test("[]")).toBe(false);
    expect(accept("/[][a]/").test("]")).toBe(false);
    expect(accept("/a[^]b/").test("a\nb")).toBe(true);
    expect(accept("/[^]/").test("")).toBe(false);
  });

  it("JavaScript escapes RE2 lacks keep their meaning: \\u, \\u{}, surrogate pairs, \\c, \\0, [\\b]", () => {
    expect(accept("/\\u00e9/").test("é")).toBe(true);
    expect(accept("/\\u{1F600}/").test("😀")).toBe(true);
    expect(accept("/^\\ud83d\\ude00$/").test("😀")).toBe(true);
    expect(accept("/[\\u0061-\\u0063]/").test("b")).toBe(true);
    expect(accept("/a\\cJb/").test("a\nb")).toBe(true);
    expect(accept("/a\\0b/").test("a\0b")).toBe(true);
    expect(accept("/[\\b]/").test("\b")).toBe(true);
    expect(accept("/[\\b]/").test("b")).toBe(false);
  });

  it("a named group is a group; classes keep [, ] and - as JavaScript reads them", () => {
    expect(accept("/^(?<verb>get) pods$/").test("get pods")).toBe(true);
    expect(accept("/^[[:a]+$/").test("[:a")).toBe(true);
    expect(accept("/^[a-c-e]+$/").test("a-e")).toBe(true);
    expect(accept("/^[a-c-e]+$/").test("d")).toBe(false);
    expect(accept("/^[\\]\\-]+$/").test("]-")).toBe(true);
  });

  it("under i, \\b treats ſ (U+017F) and K (U+212A) as word characters, as JavaScript's iu does", () => {
    expect(accept("/\\bx/i").test("\u017fx")).toBe(false);
    expect(accept("/\\Bx/i").test("\u212ax")).toBe(true);
    expect(accept("/\\bsecrets\\b/i").test("get \u017fecrets")).toBe(true);
    expect(accept("/^\u017f$/i").test("S")).toBe(true);
    expect(accept("/\\bx/").test("\u017fx")).toBe(true);
  });

  it("case folding under i follows Unicode simple folding in both engines (K, ſ, ß/ẞ)", () => {
    expect(accept("/k/i").test("\u212a")).toBe(true);
    expect(accept("/s/i").test("\u017f")).toBe(true);
    expect(accept("/\u00df/i").test("\u1e9e")).toBe(true);
    expect(accept("/i/i").test("\u0130")).toBe(false);
  });

  it("\\d and \\w stay ASCII; $ without m is the end of the argv only", () => {
    expect(accept("/\\d/").test("\u0663")).toBe(false);
    expect(accept("/\\w/").test("é")).toBe(false);
    expect(accept("/a$/").test("a\n")).toBe(false);
    expect(accept("/^b/").test("a\nb")).toBe(false);
  });
});

describe("m mode: \\r, U+2028 and U+2029 end a line in JavaScript, not in RE2: the rule fails closed", () => {
  it.each(["\r", "\u2028", "\u2029"])("with %j in the argv a deny rule matches and an accept rule does not", (terminator) => {
    expect(deny("/^rm$/m").test(`x${terminator}rm`)).toBe(true);
    expect(deny("/^nomatch$/m").test(`x${terminator}rm`)).toBe(true);
    expect(accept("/^rm$/m").test(`x${terminator}rm`)).toBe(false);
  });

  it("with \\n only both engines agree, and unanchored m rules are not affected", () => {
    expect(accept("/^rm$/m").test("x\nrm")).toBe(true);
    expect(deny("/^nomatch$/m").test("x\nrm")).toBe(false);
    expect(accept("/rm/m").test("x\rrm")).toBe(true);
    expect(deny("/nomatch/m").test("x\rrm")).toBe(false);
  });
});
