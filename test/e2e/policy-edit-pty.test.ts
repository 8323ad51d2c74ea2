/**
 * `torii policy edit` in a real pseudo-terminal, where it converses: a copy
 * that does not parse is reported and the editor reopened on request; a valid
 * copy's diff is shown and the live file replaced only once the operator
 * confirms. The editor is a scripted node program that writes the next of
 * its prepared drafts each time it is opened.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { ptySession } from "../support/pty-session.js";
import { tempDirectory } from "../support/temp-dirs.js";

const LIVE = 'version: "1"\n# the operator\'s note\naccept: [status]\n';
const BROKEN = 'version: "1"\naccept: [status\n';
const VALID = 'version: "1"\n# the operator\'s note\naccept: [status, log]\n';

/** A root with one provider, and an EDITOR that writes `drafts` in turn. */
function editing(drafts: readonly string[]) {
  const root = makeConfigTree({
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
    "providers/rec/rules.yaml": LIVE,
  });
  const tools = tempDirectory("torii-pty-editor-");
  const queue = path.join(tools, "drafts.json");
  writeFileSync(queue, JSON.stringify(drafts));
  const script = path.join(tools, "editor.mjs");
  writeFileSync(
    script,
    `import { readFileSync, writeFileSync } from "node:fs";\nconst drafts = JSON.parse(readFileSync(${JSON.stringify(queue)}, "utf8"));\nwriteFileSync(process.argv.at(-1), drafts.shift());\nwriteFileSync(${JSON.stringify(queue)}, JSON.stringify(drafts));\n`,
  );
  // TMPDIR: a declined edit keeps its draft, in a directory the test removes.
  const env = { HOME: tools, TMPDIR: tools, TORII_CONFIG_DIR: root, EDITOR: `"${process.execPath}" "${script}"` };
  return { env, rules: path.join(root, "providers/rec/rules.yaml"), audit: path.join(root, "audit.jsonl") };
}

describe("torii policy edit in a pseudo-terminal", () => {
  it("reopens the editor after a copy that does not parse, shows the diff, and replaces the live file once confirmed", async () => {
    const { env, rules, audit } = editing([BROKEN, VALID]);
    const run = ptySession(["policy", "edit", "rec"], env);
    await run.expect("the edited rules are not valid");
    await run.expect("rules.yaml:3:");
    await run.expect("in the editor?");
    expect(readFileSync(rules, "utf8")).toBe(LIVE);
    run.send("y\r");
    await run.expect("+ accept log");
    await run.expect(`replace ${rules}?`);
    run.send("y\r");
    await run.expect(`replaced ${rules}`);
    expect(await run.exited).toBe(0);
    expect(readFileSync(rules, "utf8")).toBe(VALID);
    expect(readFileSync(audit, "utf8")).toMatch(/"event":"policy-accept-added"[^\n]*"detail":"torii policy edit: accept rules.yaml:\d+ sha256:[0-9a-f]{12}"/u);
  });

  it("declining the replacement keeps the live file and the edit, and exits 1", async () => {
    const { env, rules } = editing([VALID]);
    const run = ptySession(["policy", "edit", "rec"], env);
    await run.expect(`replace ${rules}?`);
    run.send("n\r");
    await run.expect("your edit is kept in");
    expect(await run.exited).toBe(1);
    expect(readFileSync(rules, "utf8")).toBe(LIVE);
  });
});
