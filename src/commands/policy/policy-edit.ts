/**
 * `torii policy edit <tool> [target] [--create] [--dry-run] [--json]`: the
 * operator edits a copy of a rules file in `$VISUAL`/`$EDITOR` (split without a
 * shell: shared/editor-argv.ts). On save the copy is parsed (file:line:col
 * naming the copy) and compiled; on failure an interactive run offers to reopen
 * the editor, a non-interactive one keeps the copy and exits 3. A valid copy's
 * effective-rule diff and its simulation against recent audited calls are
 * printed; an interactive run asks before the live file is replaced; the
 * replacement is atomic and refused if the live file changed meanwhile (the
 * copy is then kept and named, as on every refusal). Each
 * rule added is audited (`policy-accept-added` / `policy-deny-added`).
 */
import { auditRuleRef } from "../../audit/rule-ref.js";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { auditLogPath } from "../../audit/audit-log.js";
import { readRecentCalls } from "../../audit/recent-calls.js";
import { ConfigError } from "../../config/errors.js";
import { readConfigTextIfExists } from "../../config/read-file.js";
import { EMPTY_RULES_TEXT, replaceRulesText } from "../../config/rules-edit.js";
import { parseRulesFile } from "../../config/rules-file.js";
import type { ProviderEntry } from "../../config/registry.js";
import { previewRulesChange, type RuleChangePreview } from "../../pipeline/rule-change-preview.js";
import { pinnedShellEnv, resolveOnPath } from "../shared/cli-on-path.js";
import { editorCommandLine, splitEditorCommand } from "../shared/editor-argv.js";
import { auditScope, operatorAudit } from "../shared/operator-audit.js";
import { configRoot, OperatorError } from "../shared/operator-context.js";
import { emit, type JsonOption } from "../shared/operator-output.js";
import { findProvider, findTarget, loadOperatorRegistry } from "../shared/selection.js";
import { previewLines } from "./preview-lines.js";

export interface PolicyEditOptions extends JsonOption {
  readonly create?: boolean;
  readonly dryRun?: boolean;
}

const TARGET_TEMPLATE = `# A target's own rules: its deny list is added to the provider's, its accept
# list REPLACES the provider's accepts for this target.
${EMPTY_RULES_TEXT}`;

export async function runPolicyEdit(tool: string, target: string | undefined, options: PolicyEditOptions): Promise<number> {
  const root = configRoot();
  const provider = findProvider(loadOperatorRegistry(), tool);
  const live = target === undefined ? provider.rulesPath : findTarget(provider, target).rulesPath;
  const original = readConfigTextIfExists(live);
  if (original === undefined && target !== undefined && options.create !== true) {
    throw new OperatorError(`target ${target} has no rules.yaml of its own (it uses the provider's); add --create to start one`);
  }
  const editor = editorCommandLine(process.env);
  if (editor === undefined) throw new OperatorError("set VISUAL or EDITOR to the editor to use (e.g. EDITOR=nano)");
  const argv = splitEditorCommand(editor);

  const draftDir = mkdtempSync(path.join(os.tmpdir(), "torii-policy-"));
  const draft = path.join(draftDir, "rules.yaml");
  if (original === undefined) writeFileSync(draft, TARGET_TEMPLATE, { mode: 0o600 });
  else copyFileSync(live, draft);
  const interactive = process.stdin.isTTY && options.json !== true;

  for (;;) {
    runEditor(argv, draft);
    const text = readFileSync(draft, "utf8");
    if (text === (original ?? TARGET_TEMPLATE)) {
      rmSync(draftDir, { recursive: true, force: true });
      emit(options, { file: live, changed: false }, [`no change to ${live}`]);
      return 0;
    }
    const checked = checkDraft(provider, live, draft, text, root);
    if ("problem" in checked) {
      process.stderr.write(`torii: the edited rules are not valid; ${live} is unchanged\n${checked.problem}\n`);
      if (interactive && (await ask(`reopen ${draft} in the editor?`, true))) continue;
      process.stderr.write(`your edit is kept in ${draft}\n`);
      return 3;
    }
    const { preview } = checked;
    const lines = previewLines(preview);
    if (options.dryRun === true) {
      emit(options, { file: live, changed: false, dry_run: true, preview }, [...lines, `dry run: ${live} is unchanged; your edit is in ${draft}`]);
      return 0;
    }
    if (interactive) {
      process.stdout.write(`${lines.join("\n")}\n`);
      if (!(await ask(`replace ${live}?`, true))) {
        process.stderr.write(`${live} is unchanged; your edit is kept in ${draft}\n`);
        return 1;
      }
    }
    try {
      await replaceRulesText(live, text, original);
    } catch (error) {
      // Refused (the live file changed meanwhile) or not written: the operator's edit is still theirs, say where.
      process.stderr.write(`${live} is unchanged; your edit is kept in ${draft}\n`);
      throw error;
    }
    rmSync(draftDir, { recursive: true, force: true });
    await auditAdded(root, provider, target, preview, { file: live, text });
    emit(options, { file: live, changed: true, preview }, [...(interactive ? [] : lines), `replaced ${live}`]);
    return 0;
  }
}

function runEditor(argv: readonly string[], file: string): void {
  const [command, ...args] = argv;
  if (command === undefined) throw new OperatorError("the editor command ($VISUAL or $EDITOR) is empty");
  // Found as the server finds a CLI: the operator's shell may sit in the agent's project, whose .venv/bin is on PATH.
  let executable: string;
  let env: Record<string, string>;
  try {
    executable = resolveOnPath(command);
    env = pinnedShellEnv(executable);
  } catch (error) {
    throw new OperatorError(`cannot start the editor ${JSON.stringify(command)}: ${(error as Error).message}`);
  }
  const result = spawnSync(executable, [...args, file], { stdio: "inherit", shell: false, env });
  if (result.error !== undefined) throw new OperatorError(`cannot start the editor ${JSON.stringify(command)}: ${result.error.message}`);
  if (result.status !== 0)
    throw new OperatorError(
      `the editor exited with ${result.status === null ? `signal ${String(result.signal)}` : `code ${result.status}`}; nothing was changed (your edit is in ${file})`,
    );
}

/** Parses (positions name the draft) and compiles the draft; the preview, or the problem to show. */
function checkDraft(provider: ProviderEntry, live: string, draft: string, text: string, root: string): { preview: RuleChangePreview } | { problem: string } {
  try {
    parseRulesFile(draft, text);
    const preview = previewRulesChange(provider, { file: live, text, source: draft }, readRecentCalls(auditLogPath(root)));
    if (preview.errors.length > 0)
      return {
        problem: preview.errors.map((error) => `${error.ref.origin}: ${error.ref.list} rule ${JSON.stringify(error.ref.text)} ${error.message}`).join("\n"),
      };
    return { preview };
  } catch (error) {
    if (error instanceof ConfigError) return { problem: error.message };
    throw error;
  }
}

async function ask(message: string, fallback: boolean): Promise<boolean> {
  const { confirm } = await import("@inquirer/prompts");
  return confirm({ message, default: fallback });
}

async function auditAdded(
  root: string,
  provider: ProviderEntry,
  target: string | undefined,
  preview: RuleChangePreview,
  written: { readonly file: string; readonly text: string },
): Promise<void> {
  const audit = operatorAudit(root);
  // Named by place and digest, never by text: a rule may hold option values (docs/audit.md).
  const specs = parseRulesFile(written.file, written.text);
  for (const rule of preview.diff.added) {
    const origin = specs[rule.list].find((spec) => spec.text === rule.text)?.origin ?? written.file;
    await audit.record({
      event: rule.list === "accept" ? "policy-accept-added" : "policy-deny-added",
      scope: auditScope(provider.tool, target),
      detail: `torii policy edit: ${auditRuleRef({ list: rule.list, origin, text: rule.text }, provider.dir)}`,
    });
  }
}
