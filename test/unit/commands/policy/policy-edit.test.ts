/**
 * `torii policy edit` with a scripted editor: a small node script given as
 * $EDITOR (with a quoted argument, so the no-shell splitting is exercised)
 * that replaces the draft with prepared text and records the argv it got.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../../../src/audit/audit-log.js";
import { splitEditorCommand } from "../../../../src/commands/shared/editor-argv.js";
import { kubeContextProvider, makeConfigTree } from "../../../support/config-tree.js";
import { makeFakeVersionManager, writeExecutable } from "../../../support/fake-clis.js";
import { runCli } from "../../../support/run-cli.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const SHARED = 'version: "1"\n# the operator\'s note\ndeny: []\naccept: [logs]\n';

/** A config tree, an editor script, and the EDITOR value that runs it with `replacement` as the new draft. */
function setup(replacement: string) {
  const root = makeConfigTree({
    "providers/kube/provider.yaml": kubeContextProvider("kubectl"),
    "providers/kube/rules.yaml": SHARED,
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev\nidentity: {provider: idp}\n',
    "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: idp\nargv: {parser: plain}\n',
    "providers/idp/rules.yaml": 'version: "1"\n',
  });
  const tools = tempDirectory("torii editor ");
  const script = path.join(tools, "editor.mjs");
  const source = path.join(tools, "new rules.yaml");
  const argvLog = path.join(tools, "argv.json");
  writeFileSync(source, replacement);
  writeFileSync(
    script,
    `import { copyFileSync, writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(argvLog)}, JSON.stringify(process.argv.slice(2)));\ncopyFileSync(process.argv[2], process.argv[process.argv.length - 1]);\n`,
  );
  const editor = `${JSON.stringify(process.execPath)} "${script}" '${source}'`;
  // TMPDIR: the drafts an edit keeps (a copy that does not parse, a dry run) go in a directory the test removes.
  return {
    root,
    env: { TORII_CONFIG_DIR: root, EDITOR: editor, TMPDIR: tempDirectory("torii-drafts-") },
    argvLog,
    source,
    rules: path.join(root, "providers/kube/rules.yaml"),
  };
}

describe("torii policy edit", () => {
  it("replaces the rules with the saved copy and prints the diff and its simulation on recent calls", async () => {
    const { root, env, rules, argvLog, source } = setup('version: "1"\n# the operator\'s note\ndeny: []\naccept: [logs, get pods]\n');
    await new AuditLog(path.join(root, "audit.jsonl")).appendBatch([
      { call_id: "c1", scope: "kube/dev", event: "invoke", argv_head: ["get", "pods"] },
      { call_id: "c1", scope: "kube/dev", event: "denied-headless", argv_head: ["get", "pods"] },
    ]);
    const result = await runCli(["policy", "edit", "kube"], env);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("+ accept get pods");
    expect(result.stdout).toContain('kube/dev: calls starting with "get pods" (1 recent): newly-allowed');
    expect(readFileSync(rules, "utf8")).toContain("get pods");
    const argv = JSON.parse(readFileSync(argvLog, "utf8")) as string[];
    expect(argv[0]).toBe(source);
    expect(argv).toHaveLength(2);
    const audit = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    expect(audit).toContain('"event":"policy-accept-added"');
    // The added rule is named by its place and a digest of its text, never by the text (it may hold option values).
    const digest = createHash("sha256").update("get pods", "utf8").digest("hex").slice(0, 12);
    expect(audit).toContain(`"detail":"torii policy edit: accept rules.yaml:4 sha256:${digest}"`);
    expect(audit).not.toMatch(/policy-accept-added[^\n]*get pods/u);
  });

  it("refuses a copy that does not parse with the copy's file:line:col, keeps the live file and the copy", async () => {
    const { env, rules } = setup('version: "1"\ndeny:\n  - a\n - b\n');
    const result = await runCli(["policy", "edit", "kube"], env);
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/torii-policy-[^/]+\/rules\.yaml:4:\d+: YAML syntax/u);
    expect(readFileSync(rules, "utf8")).toBe(SHARED);
    const kept = /your edit is kept in (\S+)/u.exec(result.stderr)?.[1];
    expect(kept !== undefined && existsSync(kept)).toBe(true);
  });

  it("refuses a rule that does not compile and names it", async () => {
    const { env, rules } = setup('version: "1"\ndeny: ["/(/"]\naccept: []\n');
    const result = await runCli(["policy", "edit", "kube"], env);
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('deny rule "/(/"');
    expect(readFileSync(rules, "utf8")).toBe(SHARED);
  });

  it("--dry-run shows the change and replaces nothing; a target without its own file needs --create", async () => {
    const { env, rules, root } = setup('version: "1"\ndeny: [delete]\naccept: []\n');
    const dry = await runCli(["policy", "edit", "kube", "--dry-run", "--json"], env);
    expect(JSON.parse(dry.stdout)).toMatchObject({ changed: false, dry_run: true, preview: { diff: { added: [{ text: "delete" }] } } });
    expect(readFileSync(rules, "utf8")).toBe(SHARED);
    expect((await runCli(["policy", "edit", "kube", "dev"], env)).stderr).toContain("--create");
    const created = await runCli(["policy", "edit", "kube", "dev", "--create"], env);
    expect(created.status).toBe(0);
    expect(readFileSync(path.join(root, "providers/kube/targets/dev/rules.yaml"), "utf8")).toContain("delete");
  });

  it("finds a bare editor name as the server finds a CLI: never in a PATH directory others can write to", async () => {
    const { env, rules, source } = setup('version: "1"\ndeny: []\naccept: [logs, top]\n');
    const shared = tempDirectory("torii-shared-bin-");
    const own = tempDirectory("torii-own-bin-");
    const marker = path.join(own, "planted-ran");
    writeExecutable(path.join(shared, "myeditor"), `#!/bin/sh\necho planted > '${marker}'\n`);
    chmodSync(shared, 0o777);
    writeExecutable(
      path.join(own, "myeditor"),
      `#!${process.execPath}\nrequire("node:fs").copyFileSync(process.argv[2], process.argv[process.argv.length - 1]);\n`,
    );
    const result = await runCli(["policy", "edit", "kube"], { ...env, EDITOR: `myeditor '${source}'`, PATH: `${shared}:${own}:/usr/bin:/bin` });
    expect(result.status).toBe(0);
    expect(readFileSync(rules, "utf8")).toContain("top");
    expect(existsSync(marker)).toBe(false);
    const alone = await runCli(["policy", "edit", "kube"], { ...env, EDITOR: "myeditor", PATH: shared });
    expect(alone.status).not.toBe(0);
    expect(alone.stderr).toContain(`not searched: ${shared} (`);
    expect(existsSync(marker)).toBe(false);
  });

  it("runs an editor behind a version manager's shim with the manager pinned to its global choice", async () => {
    const { env, rules, source } = setup('version: "1"\ndeny: []\naccept: [logs, top]\n');
    const manager = makeFakeVersionManager("operator-choice", { myeditor: 'cp "$1" "$2"' });
    const result = await runCli(["policy", "edit", "kube"], { ...env, EDITOR: `myeditor '${source}'`, PATH: `${manager.shims}:/usr/bin:/bin` });
    expect(result.status).toBe(0);
    expect(readFileSync(rules, "utf8")).toContain("top");
    expect(readFileSync(manager.seen, "utf8")).toBe("operator-choice");
  });

  it("a live file changed while the editor ran is not replaced, and the operator is told where the edit is kept", async () => {
    const { env, rules } = setup("unused");
    const edited = 'version: "1"\ndeny: []\naccept: [logs, get pods]\n';
    const tools = tempDirectory("torii editor ");
    const script = path.join(tools, "racing-editor.mjs");
    // Saves the operator's edit, and meanwhile another editor (or torii policy accept add) changes the live file.
    writeFileSync(
      script,
      `import { appendFileSync, writeFileSync } from "node:fs";\nwriteFileSync(process.argv[2], ${JSON.stringify(edited)});\nappendFileSync(${JSON.stringify(rules)}, "# changed elsewhere\\n");\n`,
    );
    const result = await runCli(["policy", "edit", "kube"], { ...env, EDITOR: `${JSON.stringify(process.execPath)} "${script}"` });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("changed while it was being edited");
    expect(readFileSync(rules, "utf8")).toBe(`${SHARED}# changed elsewhere\n`);
    const kept = /your edit is kept in (\S+)/u.exec(result.stderr)?.[1];
    expect(kept === undefined ? undefined : readFileSync(kept, "utf8")).toBe(edited);
  });

  it("without VISUAL or EDITOR says what to set", async () => {
    const { root } = setup("");
    const result = await runCli(["policy", "edit", "kube"], { TORII_CONFIG_DIR: root });
    expect(result).toMatchObject({ status: 3, stderr: expect.stringContaining("set VISUAL or EDITOR") as string });
  });
});

describe("splitEditorCommand", () => {
  it("splits like a shell's simple command, with no expansion", () => {
    expect(splitEditorCommand("code --wait")).toEqual(["code", "--wait"]);
    expect(splitEditorCommand(`"/opt/My Editor/edit" -w`)).toEqual(["/opt/My Editor/edit", "-w"]);
    expect(splitEditorCommand(`vim -c 'set ft=yaml' a\\ b "x\\"y"`)).toEqual(["vim", "-c", "set ft=yaml", "a b", 'x"y']);
    expect(splitEditorCommand("ed $HOME;rm ~ | x")).toEqual(["ed", "$HOME;rm", "~", "|", "x"]);
    expect(splitEditorCommand("''")).toEqual([""]);
  });

  it("refuses an unterminated quote", () => {
    expect(() => splitEditorCommand("vim 'x")).toThrow(/unterminated ' quote/u);
  });
});
