import path from "node:path";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parseRulesFile } from "../../../src/config/rules-file.js";
import { expectConfigErrorAt, tempDir, writeTree, yaml } from "./temp-tree.js";

const loadRulesFile = (file: string) => parseRulesFile(file, readFileSync(file, "utf8"));

function writeRules(text: string): string {
  const root = tempDir();
  writeTree(root, { "rules.yaml": text });
  return path.join(root, "rules.yaml");
}

describe("parseRulesFile", () => {
  it("gives each rule the file:line:column of its list item", () => {
    const file = writeRules(yaml('version: "1"', "deny:", "  - iam", "  - /delete/i", "accept:", '    - "s3 ls"', "    - ec2 describe-instances"));
    expect(loadRulesFile(file)).toEqual({
      deny: [
        { text: "iam", origin: `${file}:3:5` },
        { text: "/delete/i", origin: `${file}:4:5` },
      ],
      accept: [
        { text: "s3 ls", origin: `${file}:6:7` },
        { text: "ec2 describe-instances", origin: `${file}:7:7` },
      ],
    });
  });

  it("gives flow-list rules their own columns", () => {
    const file = writeRules(yaml('version: "1"', "deny: [iam, sts assume-role]"));
    expect(loadRulesFile(file).deny.map((rule) => rule.origin)).toEqual([`${file}:2:8`, `${file}:2:13`]);
  });

  it("defaults both lists to empty", () => {
    expect(loadRulesFile(writeRules(yaml('version: "1"')))).toEqual({ deny: [], accept: [] });
  });

  it("requires version", () => {
    const file = writeRules(yaml("deny: []"));
    expectConfigErrorAt(() => loadRulesFile(file), file, 1, 1, /missing required field "version"/);
  });

  it("refuses an unknown field at its key", () => {
    const file = writeRules(yaml('version: "1"', "deny: []", "allow:", "  - s3 ls"));
    expectConfigErrorAt(() => loadRulesFile(file), file, 3, 1, /unknown field "allow"/);
  });

  it.each([
    ['"s3\\nls"', /must be a single line/],
    ['""', /must not be empty/],
    ['"   "', /must not be blank/],
    ["42", /expected string, received number/],
  ])("refuses the rule %s at its list item", (rule, detail) => {
    const file = writeRules(yaml('version: "1"', "accept:", "  - s3 ls", `  - ${rule}`));
    expectConfigErrorAt(() => loadRulesFile(file), file, 4, 5, new RegExp(`accept\\[1\\]: .*${detail.source}`));
  });

  it("refuses YAML syntax errors with their position", () => {
    const file = writeRules(yaml('version: "1"', "deny: []", "deny: [iam]"));
    expectConfigErrorAt(() => loadRulesFile(file), file, 3, 1, /Map keys must be unique/);
  });
});
