/**
 * The rules step of `torii setup`: shows a provider's effective rules, then
 * adds or removes accept and deny rules one at a time, each previewed (diff and
 * simulation against recent audited calls) before it is written, through the
 * same editing and preview code as the approval page.
 */
import { auditRuleRef } from "../../audit/rule-ref.js";
import { input, select, confirm } from "@inquirer/prompts";
import { auditLogPath } from "../../audit/audit-log.js";
import { readRecentCalls } from "../../audit/recent-calls.js";
import { ConfigError } from "../../config/errors.js";
import { replaceRulesText, type RuleEdit } from "../../config/rules-edit.js";
import { parseRulesFile } from "../../config/rules-file.js";
import { readPolicyTexts, type ProviderEntry } from "../../config/registry.js";
import { previewRuleEdit } from "../../pipeline/rule-change-preview.js";
import { auditScope, operatorAudit } from "../shared/operator-audit.js";
import { previewLines } from "../policy/preview-lines.js";

const say = (lines: readonly string[]): void => {
  process.stdout.write(`${lines.join("\n")}\n`);
};

/** Interactive: edits the shared rules of `provider` until the operator is done. */
export async function editRulesInteractively(root: string, provider: ProviderEntry): Promise<void> {
  for (;;) {
    const rules = parseRulesFile(provider.rulesPath, readPolicyTexts(provider).shared.text);
    say([`${provider.tool} rules (${provider.rulesPath}):`, ...rules.deny.map((r) => `  deny   ${r.text}`), ...rules.accept.map((r) => `  accept ${r.text}`)]);
    const action = await select({
      message: `Change the rules of ${provider.tool}?`,
      choices: [
        { name: "done", value: "done" },
        { name: "add an accept rule", value: "add accept" },
        { name: "add a deny rule", value: "add deny" },
        ...(rules.deny.length + rules.accept.length > 0 ? [{ name: "remove a rule", value: "remove" }] : []),
      ],
    });
    if (action === "done") return;
    const edit = await chooseEdit(action, [
      ...rules.deny.map((r) => ({ list: "deny" as const, text: r.text })),
      ...rules.accept.map((r) => ({ list: "accept" as const, text: r.text })),
    ]);
    await previewAndApply(root, provider, edit);
  }
}

async function chooseEdit(action: string, existing: { list: "deny" | "accept"; text: string }[]): Promise<RuleEdit> {
  if (action === "remove") {
    const chosen = await select({ message: "Remove which rule?", choices: existing.map((rule) => ({ name: `${rule.list} ${rule.text}`, value: rule })) });
    return { action: "remove", list: chosen.list, rule: chosen.text };
  }
  const list = action === "add accept" ? "accept" : "deny";
  const rule = await input({
    message: `New ${list} rule (literal tokens such as "get pods", or /regex/):`,
    validate: (text) => (text.trim() === "" || /[\r\n]/u.test(text) ? "one non-blank line" : true),
  });
  return { action: "add", list, rule: rule.trim() };
}

async function previewAndApply(root: string, provider: ProviderEntry, edit: RuleEdit): Promise<void> {
  try {
    const preview = previewRuleEdit(provider, undefined, edit, readRecentCalls(auditLogPath(root)));
    if (!preview.changed) {
      say([`nothing to change: the rule is ${edit.action === "add" ? "already there" : "not there"}`]);
      return;
    }
    say(previewLines(preview));
    if (preview.errors.length > 0) {
      say(["not written: fix the rule first"]);
      return;
    }
    if (!(await confirm({ message: `Write ${provider.rulesPath}?`, default: true }))) return;
    await replaceRulesText(provider.rulesPath, preview.text, preview.previous);
    if (edit.action === "add") {
      await operatorAudit(root).record({
        event: edit.list === "accept" ? "policy-accept-added" : "policy-deny-added",
        scope: auditScope(provider.tool),
        // Named by place and digest, never by text: a rule may hold option values (docs/audit.md).
        detail: `torii setup: ${auditRuleRef({ list: edit.list, origin: parseRulesFile(provider.rulesPath, preview.text)[edit.list].find((spec) => spec.text === edit.rule)?.origin ?? provider.rulesPath, text: edit.rule }, provider.dir)}`,
      });
    }
    say([`written: ${provider.rulesPath}`]);
  } catch (error) {
    if (error instanceof ConfigError) {
      say([`not written: ${error.message}`]);
      return;
    }
    throw error;
  }
}
