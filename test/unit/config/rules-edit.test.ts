import { readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/errors.js";
import { applyRuleEdit, editRulesFile } from "../../../src/config/rules-edit.js";
import { parseRulesFile } from "../../../src/config/rules-file.js";
import { tempDir, yaml } from "./temp-tree.js";

const HAND_WRITTEN = yaml(
  "# top comment",
  'version: "1"   # format',
  "deny:",
  "  # --- prints credentials ---",
  "  - config view --raw   # the raw kubeconfig",
  "  - '/^get secrets?/i'",
  "accept: []   # nothing yet",
);

describe("applyRuleEdit", () => {
  it("adds an accept rule to an empty flow list as a block item and keeps every comment", () => {
    const { text, changed } = applyRuleEdit("r.yaml", HAND_WRITTEN, { action: "add", list: "accept", rule: "get pods" });
    expect(changed).toBe(true);
    expect(text).toContain("# top comment");
    expect(text).toContain("# the raw kubeconfig");
    expect(text).toContain("# --- prints credentials ---");
    expect(text).toContain("'/^get secrets?/i'");
    expect(parseRulesFile("r.yaml", text).accept.map((rule) => rule.text)).toEqual(["get pods"]);
    expect(text).toMatch(/accept:.*\n\s+- get pods\n/u);
  });

  it("removes a rule and hands its heading comment to the next rule", () => {
    const { text } = applyRuleEdit("r.yaml", HAND_WRITTEN, { action: "remove", list: "deny", rule: "config view --raw" });
    expect(parseRulesFile("r.yaml", text).deny.map((rule) => rule.text)).toEqual(["/^get secrets?/i"]);
    expect(text).not.toContain("the raw kubeconfig");
    expect(text).toMatch(/# --- prints credentials ---\n\s+- '\/\^get secrets\?\/i'/u);
  });

  it("quotes a rule whose text YAML would otherwise read differently", () => {
    const rule = "get thing: x #not-a-comment";
    const { text } = applyRuleEdit("r.yaml", HAND_WRITTEN, { action: "add", list: "deny", rule });
    expect(parseRulesFile("r.yaml", text).deny.at(-1)?.text).toBe(rule);
  });

  it("leaves the text alone for a rule already there or a rule to remove that is not there", () => {
    expect(applyRuleEdit("r.yaml", HAND_WRITTEN, { action: "add", list: "deny", rule: "config view --raw" })).toEqual({ text: HAND_WRITTEN, changed: false });
    expect(applyRuleEdit("r.yaml", HAND_WRITTEN, { action: "remove", list: "accept", rule: "get" })).toEqual({ text: HAND_WRITTEN, changed: false });
  });

  it("creates a list the file leaves out", () => {
    const { text } = applyRuleEdit("r.yaml", yaml('version: "1"', "deny: [a]"), { action: "add", list: "accept", rule: "get pods" });
    expect(parseRulesFile("r.yaml", text)).toMatchObject({ deny: [{ text: "a" }], accept: [{ text: "get pods" }] });
  });

  it("refuses to add to a list shared through a YAML alias instead of replacing it (which dropped every rule it held)", () => {
    // Every rule of the shared list is denied; adding a deny rule used to replace `*shared` with a list of the
    // new rule alone, so "get pods" and "delete pods" were no longer denied, and, being accepts, became allowed.
    const aliasedDeny = yaml('version: "1"', 'accept: &shared ["get pods", "delete pods"]', "deny: *shared");
    const aliasedAccept = yaml('version: "1"', 'deny: &shared ["delete"]', "accept: *shared");
    for (const [text, list] of [
      [aliasedDeny, "deny"],
      [aliasedAccept, "accept"],
      [aliasedDeny, "accept"],
      [aliasedAccept, "deny"],
    ] as const) {
      expect(() => applyRuleEdit("r.yaml", text, { action: "add", list, rule: "drain node" })).toThrow(/shared through a YAML anchor/u);
    }
    // A removal would change both lists (or, through the alias, find nothing to remove): refused alike.
    expect(() => applyRuleEdit("r.yaml", aliasedDeny, { action: "remove", list: "deny", rule: "get pods" })).toThrow(/shared through a YAML anchor/u);
    expect(() => applyRuleEdit("r.yaml", aliasedDeny, { action: "remove", list: "accept", rule: "get pods" })).toThrow(/shared through a YAML anchor/u);
    // One rule anchored in one list and aliased in the other: its removal would leave the alias dangling.
    const aliasedRule = yaml('version: "1"', 'accept: [&r "get pods"]', "deny: [*r]");
    expect(() => applyRuleEdit("r.yaml", aliasedRule, { action: "remove", list: "accept", rule: "get pods" })).toThrow(ConfigError);
  });

  it("refuses an edit that would drop deny rules a YAML merge key or an alias key puts in the list (judged by the reparsed lists)", () => {
    // Each file denies "delete pods" without a plain `deny:` key: adding a deny rule used to append a second `deny:`
    // key holding the new rule alone, which won, so "delete pods" was no longer denied.
    const mergeKey = yaml("%YAML 1.1", "---", 'version: "1"', '<<: {deny: ["delete pods"]}', 'accept: ["get pods"]');
    const aliasKey = yaml('version: "1"', 'accept: [&k deny, "get pods"]', '*k : ["delete pods"]');
    for (const text of [mergeKey, aliasKey]) {
      expect(parseRulesFile("r.yaml", text).deny.map((rule) => rule.text)).toEqual(["delete pods"]);
      expect(() => applyRuleEdit("r.yaml", text, { action: "add", list: "deny", rule: "drain node" })).toThrow(
        /^r\.yaml: the deny list is not written as a plain `deny:` list .*nothing was written/u,
      );
    }
    // The same for the accept list, and for removing a rule that the list holds only through the alias key
    // (it was reported as "not there" while it stayed in force).
    const aliasAcceptKey = yaml('version: "1"', 'deny: [&k accept, "delete pods"]', '*k : ["get pods"]');
    expect(() => applyRuleEdit("r.yaml", aliasAcceptKey, { action: "add", list: "accept", rule: "list pods" })).toThrow(
      /the accept list is not written as a plain/u,
    );
    expect(() => applyRuleEdit("r.yaml", aliasKey, { action: "remove", list: "deny", rule: "delete pods" })).toThrow(
      /its deny rule "delete pods" is not an item of a plain `deny:` list/u,
    );
  });

  it("refuses to remove a rule the list holds as an alias item instead of reporting it not there", () => {
    const text = yaml('version: "1"', 'deny: [&r "get pods"]', "accept: [*r]");
    expect(parseRulesFile("r.yaml", text).accept.map((rule) => rule.text)).toEqual(["get pods"]);
    expect(() => applyRuleEdit("r.yaml", text, { action: "remove", list: "accept", rule: "get pods" })).toThrow(
      /^r\.yaml: its accept rule "get pods" is written as the YAML alias \*r of a rule anchored elsewhere/u,
    );
    // Added again, it is already there (through the alias): nothing to write.
    expect(applyRuleEdit("r.yaml", text, { action: "add", list: "accept", rule: "get pods" })).toEqual({ text, changed: false });
  });

  it("removes every copy of a rule written twice, so the removed rule is no longer in force", () => {
    const text = yaml('version: "1"', 'accept: ["get pods", "list pods", "get pods"]');
    const { text: edited, changed } = applyRuleEdit("r.yaml", text, { action: "remove", list: "accept", rule: "get pods" });
    expect(changed).toBe(true);
    expect(parseRulesFile("r.yaml", edited).accept.map((rule) => rule.text)).toEqual(["list pods"]);
  });

  it("refuses a blank or multi-line rule with the position of the problem", () => {
    expect(() => applyRuleEdit("r.yaml", HAND_WRITTEN, { action: "add", list: "accept", rule: "get\npods" })).toThrow(ConfigError);
    expect(() => applyRuleEdit("r.yaml", HAND_WRITTEN, { action: "add", list: "accept", rule: "  " })).toThrow(
      /r\.yaml:\d+:\d+: accept\[0\]: must not be blank/u,
    );
  });
});

describe("editRulesFile", () => {
  it("replaces the file atomically with the edited text", async () => {
    const file = path.join(tempDir(), "rules.yaml");
    writeFileSync(file, HAND_WRITTEN);
    const result = await editRulesFile(file, { action: "add", list: "accept", rule: "get pods" });
    expect(result.changed).toBe(true);
    expect(result.before.accept).toEqual([]);
    expect(result.after.accept.map((rule) => rule.text)).toEqual(["get pods"]);
    expect(readFileSync(file, "utf8")).toBe(result.text);
    expect(readFileSync(file, "utf8")).toContain("# top comment");
  });

  it("refuses a file that does not parse with file:line:col and leaves it untouched", async () => {
    const file = path.join(tempDir(), "rules.yaml");
    const broken = yaml('version: "1"', "deny:", "  - a", " - b", "accept: []");
    writeFileSync(file, broken);
    const before = statSync(file).mtimeMs;
    await expect(editRulesFile(file, { action: "add", list: "accept", rule: "get" })).rejects.toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/gu, "\\$&")}:4:\\d+: YAML syntax`, "u"),
    );
    expect(readFileSync(file, "utf8")).toBe(broken);
    expect(statSync(file).mtimeMs).toBe(before);
  });

  it("refuses a missing file unless asked to create it", async () => {
    const file = path.join(tempDir(), "rules.yaml");
    await expect(editRulesFile(file, { action: "add", list: "deny", rule: "delete" })).rejects.toThrow(/file not found/u);
    const result = await editRulesFile(file, { action: "add", list: "deny", rule: "delete" }, { create: true });
    expect(result.after.deny.map((rule) => rule.text)).toEqual(["delete"]);
    expect(parseRulesFile(file, readFileSync(file, "utf8")).deny.map((rule) => rule.text)).toEqual(["delete"]);
  });

  it("does not write when nothing changes", async () => {
    const file = path.join(tempDir(), "rules.yaml");
    writeFileSync(file, HAND_WRITTEN);
    const result = await editRulesFile(file, { action: "remove", list: "accept", rule: "get" });
    expect(result.changed).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(HAND_WRITTEN);
  });
});
