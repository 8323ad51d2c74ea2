/**
 * The one reader of argparse body options (src/policy/grammar/body-option.ts):
 * every spelling argparse reads as an option (red team 9 F1: `-rd PATH` is
 * `-r -d PATH`), and no word that is not an option.
 */
import { describe, expect, it } from "vitest";
import { bodyOption, namesBodyOption } from "../../../../src/policy/grammar/body-option.js";

const DEST = ["--destination-path", "-d"];

describe("bodyOption reads a body token as argparse does", () => {
  it.each([
    ["--destination-path", { name: "--destination-path", value: undefined }],
    ["--destination-path=/x", { name: "--destination-path", value: "/x" }],
    ["--dest", { name: "--destination-path", value: undefined }],
    ["--d", { name: "--destination-path", value: undefined }],
    ["--de=/x", { name: "--destination-path", value: "/x" }],
    ["-d", { name: "-d", value: undefined }],
    ["-d/x", { name: "-d", value: "/x" }],
    ["-d=/x", { name: "-d", value: "/x" }],
    ["-rd", { name: "-d", value: undefined }],
    ["-rd/x", { name: "-d", value: "/x" }],
    ["-rd=/x", { name: "-d", value: "/x" }],
    ["-yrqd", { name: "-d", value: undefined }],
  ])("%j names %j", (token, expected) => {
    expect(bodyOption(token, DEST)).toEqual(expected);
  });

  it.each(["download", "dest", "-", "--", "-r", "-s", "--destination-paths", "--source"])("%j names neither", (token) => {
    expect(bodyOption(token, DEST)).toBeUndefined();
  });

  it("a word that holds the short's letter is no option: only a token with a leading dash is", () => {
    expect(namesBodyOption("download", "-d")).toBe(false);
    expect(namesBodyOption("-xd", "-d")).toBe(true);
  });
});
