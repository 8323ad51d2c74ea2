/**
 * A command path read as the CLIs' sub-command parsers read it: the first two
 * words contiguous, each further word at its next occurrence (a sub-command
 * may follow its parent's options and their values), less the values of the
 * parent options the grammar knows take one.
 */
import { describe, expect, it } from "vitest";
import { commandPathEnd, commandWordsOf, runsCommandPath } from "../../../../src/policy/grammar/command-path.js";

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

describe("words less the values of a parent's options", () => {
  const PARENTS = [
    { command: ["cloudformation", "deploy"], values: ["--stack-name", "--s3-bucket", "--s3-prefix", "--tags"], switches: ["--no-execute-changeset"] },
  ];
  const words = (body: readonly string[]) => commandWordsOf(body, PARENTS);

  it("the value of an option that takes one is no word, by its full name or an unambiguous abbreviation", () => {
    expect(words(["cloudformation", "deploy", "--stack-name", "install"])).toEqual(["cloudformation", "deploy"]);
    expect(words(["cloudformation", "deploy", "--stack", "install", "install", "--x", "y"])).toEqual(["cloudformation", "deploy", "install", "y"]);
    expect(runsCommandPath(words(["cloudformation", "deploy", "--stack-name", "install"]), ["cloudformation", "deploy", "install"])).toBe(false);
  });

  it("a switch, a glued value, an ambiguous abbreviation and an unknown option skip nothing", () => {
    expect(words(["cloudformation", "deploy", "--no-execute-changeset", "install"])).toEqual(["cloudformation", "deploy", "install"]);
    expect(words(["cloudformation", "deploy", "--stack-name=s", "install"])).toEqual(["cloudformation", "deploy", "install"]);
    expect(words(["cloudformation", "deploy", "--s3", "install"])).toEqual(["cloudformation", "deploy", "install"]);
    expect(words(["cloudformation", "deploy", "--unknown", "install"])).toEqual(["cloudformation", "deploy", "install"]);
  });

  it("only one value is skipped (a list option's further values stay words), and only before the parent's sub-command", () => {
    expect(words(["cloudformation", "deploy", "--tags", "a=b", "install"])).toEqual(["cloudformation", "deploy", "install"]);
    expect(words(["cloudformation", "deploy", "push", "--stack-name", "install"])).toEqual(["cloudformation", "deploy", "push", "install"]);
    // Another command's body is read as before.
    expect(words(["cloudformation", "describe-stacks", "--stack-name", "install"])).toEqual(["cloudformation", "describe-stacks", "install"]);
  });
});
