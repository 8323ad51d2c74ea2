/**
 * `torii policy show <tool> [target]`: the shared rules file, the target's file
 * and the effective rules in force for that target, with warnings for accept
 * rules that are ignored and rules that do not compile.
 */
import { stringify } from "yaml";
import { readConfigText } from "../../config/read-file.js";
import { effectivePolicyOf } from "../../policy/explain.js";
import { identityNoteLines } from "./identity-note.js";
import { loadPolicyFor } from "./policy-selection.js";

export interface PolicyShowOptions {
  readonly json?: boolean;
}

export function runPolicyShow(tool: string, target: string | undefined, options: PolicyShowOptions): number {
  const selection = loadPolicyFor(tool, target);
  const effective = effectivePolicyOf(selection.policy, target);
  if (options.json === true) {
    const files = { shared: selection.sharedRulesPath, target: selection.targetRulesPath ?? null };
    const identity = target === undefined ? undefined : selection.provider.targets.get(target)?.config.identity.provider;
    const exposure = { exposed: selection.provider.config.expose, ...(identity === undefined ? {} : { identity_provider: identity }) };
    process.stdout.write(`${JSON.stringify({ ...effective, files, ...exposure }, null, 2)}\n`);
    return effective.errors.length > 0 ? 1 : 0;
  }
  const out: string[] = identityNoteLines(selection.registry, selection.provider, target);
  out.push(`# shared: ${selection.sharedRulesPath}`, readConfigText(selection.sharedRulesPath).trimEnd(), "");
  if (target !== undefined) {
    if (selection.targetRulesPath === undefined) {
      out.push(`# target ${target}: no rules.yaml, so the shared accept rules apply`, "");
    } else {
      out.push(`# target ${target}: ${selection.targetRulesPath}`, readConfigText(selection.targetRulesPath).trimEnd(), "");
    }
  }
  out.push("# effective");
  out.push(
    stringify({
      minimum_accept_tokens: effective.minimum_accept_tokens,
      deny: [...effective.deny],
      accept: [...effective.accept],
    }).trimEnd(),
  );
  for (const ignored of effective.ignored_accept) {
    out.push(`# warning: accept rule ${JSON.stringify(ignored)} is ignored: it has fewer than ${effective.minimum_accept_tokens} tokens`);
  }
  for (const error of effective.errors) {
    out.push(`# error: ${error.origin}: rule ${JSON.stringify(error.rule)}: ${error.message} (every call is denied until this is fixed)`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return effective.errors.length > 0 ? 1 : 0;
}
