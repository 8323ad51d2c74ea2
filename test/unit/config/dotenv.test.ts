import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDotenv, readDotenvIfExists } from "../../../src/config/dotenv.js";
import { ConfigError } from "../../../src/config/errors.js";
import { configTrust } from "../../../src/config/trusted-path.js";
import { catchConfigError, tempDir } from "./temp-tree.js";

const FILE = "/cfg/providers/aws/.env";

function parse(...lines: string[]): Record<string, string> {
  return Object.fromEntries(parseDotenv(FILE, lines.join("\n")));
}

/** Every `file:line:column:` location in the error, in order. */
function locations(error: ConfigError): string[] {
  return error.message.split("\n").map((entry) => /^(.*?:\d+:\d+):/.exec(entry)?.[1] ?? `(unlocated) ${entry}`);
}

function errorOf(text: string): ConfigError {
  return catchConfigError(() => parseDotenv(FILE, text));
}

describe("parseDotenv: accepted forms", () => {
  it("reads KEY=VALUE lines, skipping blank lines and comments", () => {
    expect(parse("# a comment", "", "   ", "  # indented comment", "A=1", "B=two words")).toEqual({ A: "1", B: "two words" });
  });

  it("keeps file order", () => {
    expect([...parseDotenv(FILE, "Z=1\nA=2\nM=3\n").keys()]).toEqual(["Z", "A", "M"]);
  });

  it("accepts export, set and $env: prefixes", () => {
    expect(parse("export A=1", "EXPORT B=2", "set C=3", "SET D=4", "$env:E=5", "$Env:F='6'", "export\tG=7")).toEqual({
      A: "1",
      B: "2",
      C: "3",
      D: "4",
      E: "5",
      F: "6",
      G: "7",
    });
  });

  it("treats a prefix word followed by = as the variable name", () => {
    expect(parse("export=1", "set = 2")).toEqual({ export: "1", set: "2" });
  });

  it("allows blanks around = and trims unquoted values", () => {
    expect(parse("A = 1 ", "B\t=\t two  ", "  C=3")).toEqual({ A: "1", B: "two", C: "3" });
  });

  it("cuts an unquoted value at a # that follows a blank, and keeps other #", () => {
    expect(parse("A=1 # comment", "B=x#y", "C=#z", "D= # only a comment", "E=a\t#tab")).toEqual({
      A: "1",
      B: "x#y",
      C: "#z",
      D: "",
      E: "a",
    });
  });

  it("accepts empty values and values containing =", () => {
    expect(parse("A=", "B=a=b==c", 'C=""', "D=''")).toEqual({ A: "", B: "a=b==c", C: "", D: "" });
  });

  it("keeps single-quoted values literal", () => {
    expect(parse("A='x # not a comment'", "B='a\\nb'", "C='${HOME}'", "D='say \"hi\"'  # comment")).toEqual({
      A: "x # not a comment",
      B: "a\\nb",
      C: "${HOME}",
      D: 'say "hi"',
    });
  });

  it("decodes the double-quote escapes", () => {
    expect(parse(String.raw`A="l1\nl2\r\tx\"q\"\\end"`)).toEqual({ A: 'l1\nl2\r\tx"q"\\end' });
  });

  it("lets a double-quoted value span lines", () => {
    const text = 'KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----" # pem\nNEXT=1\n';
    expect(Object.fromEntries(parseDotenv(FILE, text))).toEqual({ KEY: "-----BEGIN KEY-----\nabc\n-----END KEY-----", NEXT: "1" });
  });

  it("never expands variables", () => {
    expect(parse("A=1", "B=${A}", 'C="$A ${A}"', "D=$(whoami)")).toEqual({ A: "1", B: "${A}", C: "$A ${A}", D: "$(whoami)" });
  });

  it("accepts CRLF line ends, also inside a multi-line double-quoted value", () => {
    expect(Object.fromEntries(parseDotenv(FILE, 'A=1\r\nB="x\r\ny"\r\n# c\r\nC=3\r\n'))).toEqual({ A: "1", B: "x\ny", C: "3" });
  });

  it("accepts a UTF-8 BOM at the start", () => {
    expect(Object.fromEntries(parseDotenv(FILE, "\uFEFFA=1\n"))).toEqual({ A: "1" });
  });

  it("keeps unquoted quotes and backslashes inside a value literal", () => {
    expect(parse(String.raw`A=C:\Users\me`, `B=it's`, `C=a"b`)).toEqual({ A: "C:\\Users\\me", B: "it's", C: 'a"b' });
  });

  it("keeps non-ASCII values", () => {
    expect(parse("A=héllo wörld 🎌", 'B="日本"')).toEqual({ A: "héllo wörld 🎌", B: "日本" });
  });

  it("returns an empty map for an empty file", () => {
    expect(parseDotenv(FILE, "").size).toBe(0);
    expect(parseDotenv(FILE, "\n\n# nothing\n").size).toBe(0);
  });

  it("accepts __proto__ as an ordinary name", () => {
    const parsed = parseDotenv(FILE, "__proto__=x\nconstructor=y\n");
    expect(parsed.get("__proto__")).toBe("x");
    expect(parsed.get("constructor")).toBe("y");
  });
});

/** [description, file text, expected `line:column` of the first problem, detail pattern] */
const MALFORMED: readonly (readonly [string, string, string, RegExp])[] = [
  ["no =", "A=1\nSECRETVALUE123\n", "2:1", /no '='/],
  ["no = after export", "export SECRETVALUE123\n", "1:8", /no '='/],
  ["space inside the name", "BAD KEY=SECRETVALUE123\n", "1:4", /only letters, digits/],
  ["name starting with a digit", "1KEY=SECRETVALUE123\n", "1:1", /must start with a letter/],
  ["dash in the name", "MY-KEY=SECRETVALUE123\n", "1:3", /only letters, digits/],
  ["dot in the name", "a.b=SECRETVALUE123\n", "1:2", /only letters, digits/],
  ["empty name", "=SECRETVALUE123\n", "1:1", /missing variable name/],
  ["empty name after a prefix", "$env:=SECRETVALUE123\n", "1:6", /missing variable name/],
  ["non-ASCII name", "CLÉ=SECRETVALUE123\n", "1:3", /only letters, digits/],
  ["unterminated double quote", 'A=1\nB=2\nTOKEN="SECRETVALUE123\nC=3\n', "3:7", /unterminated double quote/],
  ["unterminated single quote", "TOKEN='SECRETVALUE123\nC=3\n", "1:7", /unterminated single quote/],
  ["single quote does not span lines", "TOKEN='SECRET\nVALUE123'\n", "1:7", /unterminated single quote/],
  ["junk after a closing double quote", 'TOKEN="SECRET"VALUE123\n', "1:15", /after the closing quote/],
  ["junk after a closing single quote", "TOKEN='SECRET' VALUE123\n", "1:16", /after the closing quote/],
  ["junk after a multi-line value", 'A=1\nTOKEN="SECRET\nVAL"UE123\n', "3:5", /after the closing quote/],
  ["unsupported escape", 'TOKEN="SECRET\\qVALUE123"\n', "1:14", /unsupported escape/],
  ["backslash at the end of a quoted line", 'TOKEN="SECRETVALUE123\\\nmore"\n', "1:22", /unsupported escape/],
  ["duplicate key", "TOKEN=SECRETVALUE123\nOTHER=1\nTOKEN=SECRETVALUE124\n", "3:1", /duplicate variable TOKEN \(first set on line 1\)/],
  ["duplicate key after a prefix", "TOKEN=SECRETVALUE123\nexport TOKEN=SECRETVALUE124\n", "2:8", /duplicate variable TOKEN/],
  ["NUL in a value", "TOKEN=SECRET\0VALUE123\n", "1:13", /NUL character/],
  ["lone carriage return", "TOKEN=SECRET\rVALUE123\n", "1:13", /carriage return/],
  ["BOM that is not at the start", "A=1\n\uFEFFTOKEN=SECRETVALUE123\n", "2:1", /must start with a letter/],
  ["a value-only line inside a file", "# header\n\n   SECRETVALUE123   \n", "3:4", /no '='/],
];

describe("parseDotenv: malformed input", () => {
  it.each(MALFORMED)("%s: reported at its line and column", (_name, text, where, detail) => {
    const error = errorOf(text);
    expect(locations(error)[0]).toBe(`${FILE}:${where}`);
    const [line, column] = where.split(":").map(Number);
    expect(error.line).toBe(line);
    expect(error.column).toBe(column);
    expect(error.detail).toMatch(detail);
  });

  it.each(MALFORMED)("%s: the message never contains the value", (_name, text) => {
    const error = errorOf(text);
    for (const secret of ["SECRET", "VALUE123", "UE123"]) expect(error.message).not.toContain(secret);
  });

  it("reports every bad line, not only the first", () => {
    const error = errorOf("A=1\nNOEQUALS\nB C=2\nD=3\n4E=x\nD=5\n");
    expect(locations(error)).toEqual([`${FILE}:2:1`, `${FILE}:3:2`, `${FILE}:5:1`, `${FILE}:6:1`]);
  });

  it("counts lines after a multi-line value correctly", () => {
    const error = errorOf('A="x\ny\nz"\nBROKEN\n');
    expect(locations(error)).toEqual([`${FILE}:4:1`]);
  });

  it("counts lines in CRLF files like LF files", () => {
    expect(locations(errorOf("A=1\r\n\r\nBROKEN\r\n"))).toEqual([`${FILE}:3:1`]);
  });

  it("does not count the BOM as a column", () => {
    expect(locations(errorOf("\uFEFFBAD KEY=1\n"))).toEqual([`${FILE}:1:4`]);
  });

  it("stops after an unterminated double quote, since the rest cannot be told apart from the value", () => {
    const error = errorOf('A="open\nNOEQ\nB C=1\n');
    expect(locations(error)).toEqual([`${FILE}:1:3`]);
  });

  it("lists at most 20 problems and says how many more there are", () => {
    const error = errorOf(Array.from({ length: 30 }, (_, i) => `BROKEN${i}`).join("\n"));
    const entries = error.message.split("\n");
    expect(entries).toHaveLength(21);
    expect(entries[20]).toBe(`${FILE}:21:1: 10 more problem(s) from here on, not listed`);
  });

  it("never echoes the text of a bad line (property)", () => {
    const secretChar = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".split(""));
    const secret = fc.string({ unit: secretChar, minLength: 12, maxLength: 40 }).map((core) => `S3CR${core}`);
    const badLine = fc.oneof(
      secret.map((value) => value),
      secret.map((value) => `BAD KEY=${value}`),
      secret.map((value) => `TOKEN="${value}`),
      secret.map((value) => `TOKEN='${value}`),
      secret.map((value) => `TOKEN="${value}"${value}`),
      secret.map((value) => `TOKEN="${value}\\x"`),
      secret.map((value) => `9${value}=${value}`),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(badLine, fc.constant("OK=1"), fc.constant("")), { minLength: 1, maxLength: 8 }), badLine, (lines, bad) => {
        const text = [...lines, bad].join("\n");
        let message: string;
        try {
          parseDotenv(FILE, text);
          return;
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as ConfigError).message;
        }
        expect(message).not.toMatch(/S3CR/);
      }),
      { seed: 20260101, numRuns: 300 },
    );
  });
});

describe("readDotenvIfExists", () => {
  it("returns undefined when the file does not exist", () => {
    const dir = tempDir();
    expect(readDotenvIfExists(configTrust(dir), path.join(dir, ".env"))).toBeUndefined();
  });

  it("parses an existing file and names it in errors", () => {
    const dir = tempDir();
    const good = path.join(dir, "good.env");
    const bad = path.join(dir, "bad.env");
    writeFileSync(good, "A=1\n");
    writeFileSync(bad, "A=1\nB\n");
    expect(Object.fromEntries(readDotenvIfExists(configTrust(dir), good) ?? [])).toEqual({ A: "1" });
    expect(locations(catchConfigError(() => readDotenvIfExists(configTrust(dir), bad)))).toEqual([`${bad}:2:1`]);
  });

  it("refuses a byte that is not UTF-8 at its line and column, without echoing the value", () => {
    const dir = tempDir();
    const file = path.join(dir, ".env");
    writeFileSync(file, Buffer.concat([Buffer.from("A=1\nTOKEN=SECRET"), Buffer.from([0xff]), Buffer.from("VALUE123\n")]));
    const error = catchConfigError(() => readDotenvIfExists(configTrust(dir), file));
    expect(locations(error)).toEqual([`${file}:2:13`]);
    expect(error.detail).toMatch(/not valid UTF-8/);
    for (const secret of ["SECRET", "VALUE123"]) expect(error.message).not.toContain(secret);
  });

  it("refuses a directory instead of treating it as absent", () => {
    const root = tempDir();
    const dir = path.join(root, ".env");
    mkdirSync(dir);
    expect(catchConfigError(() => readDotenvIfExists(configTrust(root), dir)).message).toMatch(/is not a regular file/);
  });

  it.skipIf(process.platform === "win32" || process.getuid?.() === 0)("refuses an unreadable file", () => {
    const root = tempDir();
    const file = path.join(root, ".env");
    writeFileSync(file, "A=1\n");
    chmodSync(file, 0o000);
    expect(catchConfigError(() => readDotenvIfExists(configTrust(root), file)).message).toMatch(/cannot be read/);
  });
});
