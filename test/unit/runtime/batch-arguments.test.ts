import { describe, expect, it } from "vitest";
import { fc, prop } from "../../support/property-test.js";
import { checkBatchLaunch, classifyBatchArgument, planBatchLaunch } from "../../../src/runtime/batch-arguments.js";

/** threats.md §2, every vector: each must be refused before a process is started. */
const THREAT_VECTORS: readonly string[] = [
  "&whoami",
  "&echo hello",
  ">file.txt",
  '"&echo hello&whoami.exe',
  'abc"&echo hello',
  '123">file.txt',
  'key="&whoami"',
  'key=[">file.txt"]',
  'hello^"world',
  "%PATH%",
  "%PATH%PATH%",
  "%%cd:~,%",
  "!TMP!",
  "a|b",
  "(x)",
  "x^y",
  "<in",
  "\\",
  '"',
  '""',
  "",
  "C:\\dir\\",
  "\n",
  "\r",
];

/** More of the same family: whitespace, control characters, non-ASCII, cmd separators. */
const MORE_REFUSED: readonly string[] = [
  "a b",
  "a\tb",
  "line\nbreak",
  "carriage\rreturn",
  "nul\0byte",
  "semi;colon",
  "back`tick",
  "star*",
  "question?",
  "C:\\dir\\file",
  "caf\u00e9",
  "\u00a0",
  "\u202eevil",
  "emoji\u{1f600}",
  "$(whoami)",
  "~user",
  "#hash",
  "'single'",
  "[bracket]",
  "{brace}",
];

const ACCEPTED: readonly string[] = [
  "get",
  "--output=json",
  "us-east-1",
  "arn:aws:iam::123456789012:role/x",
  "-o",
  "a,b,c",
  "user@example.com",
  "a+b",
  "_x.y-z",
  "https://example.com/path",
  "0",
];

describe("classifyBatchArgument", () => {
  it.each(THREAT_VECTORS.map((vector) => [JSON.stringify(vector), vector]))("refuses the threat vector %s", (_label, vector) => {
    expect(classifyBatchArgument(vector).ok).toBe(false);
  });

  it.each(MORE_REFUSED.map((vector) => [JSON.stringify(vector), vector]))("refuses %s", (_label, vector) => {
    expect(classifyBatchArgument(vector).ok).toBe(false);
  });

  it.each(ACCEPTED)("accepts %s", (argument) => {
    expect(classifyBatchArgument(argument)).toEqual({ ok: true });
  });

  it("names the character class, not the value", () => {
    const reasonFor = (argument: string): string => {
      const verdict = classifyBatchArgument(argument);
      if (verdict.ok) throw new Error(`expected ${argument} to be refused`);
      return verdict.reason;
    };
    expect(reasonFor("")).toMatch(/empty/);
    expect(reasonFor("%PATH%")).toMatch(/contains %, which cmd.exe expands/);
    expect(reasonFor("!TMP!")).toMatch(/contains !, which cmd.exe expands/);
    expect(reasonFor("x&whoami")).toMatch(/contains &, a cmd.exe operator/);
    expect(reasonFor('key="x"')).toMatch(/contains ", which changes cmd.exe quoting/);
    expect(reasonFor("C:\\dir\\")).toMatch(/contains \\/);
    expect(reasonFor("a b")).toMatch(/whitespace/);
    expect(reasonFor("a\nb")).toMatch(/line break/);
    expect(reasonFor("\0")).toMatch(/control character U\+0000/);
    expect(reasonFor("caf\u00e9")).toMatch(/non-ASCII/);
    expect(reasonFor("a;b")).toMatch(/outside the batch-safe set/);
    expect(reasonFor("token-5ecret&whoami")).not.toContain("5ecret");
  });

  prop([fc.stringMatching(/^[A-Za-z0-9\-_.,:/=@+]+$/u)])("accepts every non-empty string of the safe set", (argument) => {
    expect(classifyBatchArgument(argument).ok).toBe(true);
  });

  prop([fc.string(), fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.string()])(
    "refuses any string holding a character outside the safe set",
    (before, character, after) => {
      fc.pre(!/^[A-Za-z0-9\-_.,:/=@+]$/u.test(character));
      expect(classifyBatchArgument(before + character + after).ok).toBe(false);
    },
  );
});

describe("checkBatchLaunch", () => {
  const script = "C:\\Program Files (x86)\\Microsoft SDKs\\Azure\\CLI2\\wbin\\az.cmd";

  it("accepts a plain script path with safe arguments (spaces and parentheses in the path are quoted)", () => {
    expect(checkBatchLaunch(script, ["group", "list", "--output=json"])).toEqual({ ok: true });
    expect(checkBatchLaunch("C:\\tools\\RUN.BAT", [])).toEqual({ ok: true });
  });

  it("names the first refused argument by its 1-based position", () => {
    expect(checkBatchLaunch(script, ["group", "list", "&whoami"])).toEqual({ ok: false, reason: "argument 3 contains &, a cmd.exe operator" });
  });

  it.each(THREAT_VECTORS.map((vector) => [JSON.stringify(vector), vector]))("refuses a launch carrying %s", (_label, vector) => {
    expect(checkBatchLaunch(script, ["account", "show", vector]).ok).toBe(false);
  });

  it.each([
    ['C:\\tools\\a"b.cmd', /contains "/],
    ["C:\\tools\\", /ends in \\/],
    ["C:\\tools\\dir\\", /ends in \\/],
    ["C:\\%TMP%\\x.cmd", /contains %/],
    ["C:\\tools\\x.cmd\r\n", /control character/],
    ["C:\\tools\\x.exe", /not a .bat or .cmd/],
    ["x.cmd", /must be absolute/],
    ["\\\\?\\C:\\x.cmd", /must be absolute/],
  ])("refuses the script path %s", (scriptPath, reason) => {
    const verdict = checkBatchLaunch(scriptPath, ["get"]);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(reason);
  });
});

describe("planBatchLaunch", () => {
  it("builds one cmd.exe command line with AutoRun and delayed expansion off", () => {
    expect(planBatchLaunch("C:\\Windows\\System32\\cmd.exe", "C:\\Program Files\\CLI\\az.cmd", ["group", "list", "--output=json"])).toEqual({
      ok: true,
      executable: "C:\\Windows\\System32\\cmd.exe",
      args: ["/d", "/e:ON", "/v:OFF", "/s", "/c", '""C:\\Program Files\\CLI\\az.cmd" group list --output=json"'],
      windowsVerbatimArguments: true,
    });
    expect(planBatchLaunch("C:\\Windows\\System32\\cmd.exe", "C:\\t\\x.bat", []).ok).toBe(true);
  });

  it("returns the refusal instead of a plan", () => {
    expect(planBatchLaunch("C:\\Windows\\System32\\cmd.exe", "C:\\t\\x.cmd", ["%PATH%"])).toEqual({
      ok: false,
      reason: "argument 1 contains %, which cmd.exe expands as a variable",
    });
    expect(planBatchLaunch("cmd.exe", "C:\\t\\x.cmd", []).ok).toBe(false);
    expect(planBatchLaunch('C:\\Windows\\System32\\cmd.exe"', "C:\\t\\x.cmd", []).ok).toBe(false);
  });

  it("refuses a cmd.exe path Node would put unquoted at the head of the verbatim command line (whitespace, cmd.exe operators)", () => {
    for (const cmdExe of [
      "C:\\Program Files\\Win\\System32\\cmd.exe",
      "C:\\Win&calc\\System32\\cmd.exe",
      "C:\\Win^x\\System32\\cmd.exe",
      "C:\\W(1)\\System32\\cmd.exe",
      "C:\\W!x!\\System32\\cmd.exe",
      "C:\\W|x\\System32\\cmd.exe",
      "C:\\W\tx\\System32\\cmd.exe",
    ]) {
      expect(planBatchLaunch(cmdExe, "C:\\t\\x.cmd", ["a"]), cmdExe).toEqual({
        ok: false,
        reason: "cmd.exe must be given as a plain absolute path (letters, digits, \\ _ . - only)",
      });
    }
    expect(planBatchLaunch("C:\\WINDOWS\\system32\\cmd.exe", "C:\\t\\x.cmd", ["a"]).ok).toBe(true);
  });
});
