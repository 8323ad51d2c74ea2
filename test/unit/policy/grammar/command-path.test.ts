/**
 * A command path read as the CLIs' sub-command parsers read it: the first two
 * words contiguous, each further word at its next occurrence (a sub-command
 * may follow its parent's options and their values).
 */
import { describe, expect, it } from "vitest";
import { commandPathEnd, runsCommandPath } from "../../../../src/policy/grammar/command-path.js";

describe("command paths in a call's words", () => {
  it("a sub-command after its parent's option values still runs the path; the end is just after its word", () => {
    const words = ["cloudformation", "deploy", "t.yaml", "s", "install", "x"];
    expect(commandPathEnd(words, ["cloudformation", "deploy", "install"])).toBe(5);
    expect(runsCommandPath(["ecs", "deploy", "a", "td.json", "as.yml", "uninstall"], ["ecs", "deploy", "uninstall"])).toBe(true);
  });

  it("the first two words must follow each other: a value equal to an operation word is not that operation", () => {
    expect(runsCommandPath(["emr", "describe-cluster", "ssh"], ["emr", "ssh"])).toBe(false);
    expect(runsCommandPath(["s3", "cp", "deploy", "install"], ["deploy", "install"])).toBe(false);
    expect(runsCommandPath(["deploy", "install"], ["deploy", "install"])).toBe(true);
  });

  it("words out of order, missing words and an empty path", () => {
    expect(runsCommandPath(["cloudformation", "deploy", "install"], ["cloudformation", "deploy", "push"])).toBe(false);
    expect(runsCommandPath(["a", "b", "d", "c"], ["a", "b", "c", "d"])).toBe(false);
    expect(commandPathEnd(["a"], [])).toBe(0);
    expect(commandPathEnd([], ["a"])).toBe(-1);
  });
});
