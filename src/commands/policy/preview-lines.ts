/**
 * A rules change preview (pipeline/rule-change-preview.ts) as terminal lines:
 * the rules added and removed, rules that would not compile, and per scope the
 * recent calls whose decision changes, labelled by the head the audit log keeps.
 */
import type { RuleChangePreview } from "../../pipeline/rule-change-preview.js";

/** The lines `torii policy edit` and `torii setup` print for a preview. */
export function previewLines(preview: RuleChangePreview): string[] {
  const lines: string[] = [];
  const { added, removed } = preview.diff;
  if (added.length + removed.length === 0) lines.push("effective rules: no change (comments or layout only)");
  for (const rule of added) lines.push(`+ ${rule.list} ${rule.text}`);
  for (const rule of removed) lines.push(`- ${rule.list} ${rule.text}`);
  for (const error of preview.errors) lines.push(`! ${error.ref.origin}: ${error.ref.list} rule ${JSON.stringify(error.ref.text)} ${error.message}`);
  let calls = 0;
  for (const scope of preview.scopes) {
    for (const outcome of scope.outcomes) {
      calls += outcome.calls.length;
      if (outcome.change === "unchanged" && outcome.certain) continue;
      const head = outcome.head.join(" ");
      const change = outcome.change === "unchanged" ? "may change for some" : outcome.change;
      const caveat = outcome.certain || outcome.change === "unchanged" ? "" : " (some, not necessarily all: the log keeps only the first tokens)";
      lines.push(`  ${scope.scope}: calls starting with "${head}" (${outcome.calls.length} recent): ${change}${caveat}`);
    }
  }
  lines.push(
    calls === 0 ? "simulation: no recent calls in the audit log for these scopes" : `simulation: ${calls} recent call(s) checked against the new rules`,
  );
  return lines;
}
