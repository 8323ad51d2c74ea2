/**
 * How the audit log names a rule: its list, its place in the provider's rules
 * files and a short digest of its text, never the text itself. A rule is a
 * regex or literal tokens over the canonical argv, option values included (the
 * approval page's "Always allow" writes the call's whole argv as one), and the
 * log promises that no option value is written (docs/audit.md).
 *
 * The digest tells which rule it was by comparison with `rules.yaml` (the same
 * text gives the same digest); it is not a secret keeping device: a low-entropy
 * value can be found from it by trying candidates.
 */
import path from "node:path";
import { sha256Hex } from "./record.js";

/** The hex digits of the text's SHA-256 kept in a reference. */
export const RULE_DIGEST_HEX = 12;

/** A rule to name: its list, where it was written (`<file>:<line>:<column>`, or a file), its text. */
export interface AuditedRule {
  readonly list: "accept" | "deny";
  readonly origin: string | undefined;
  readonly text: string;
}

/**
 * `accept rules.yaml:4 sha256:1a2b3c4d5e6f`, or for a target's own file
 * `deny targets/prod/rules.yaml:2 sha256:…`: the file relative to the provider's
 * directory (its name alone when elsewhere, `rules.yaml` when unknown) and the line.
 */
export function auditRuleRef(rule: AuditedRule, providerDir: string): string {
  // The one-shot digest (record.ts): an allowed call names its rule in every allow record.
  const digest = sha256Hex(rule.text).slice(0, RULE_DIGEST_HEX);
  return `${rule.list} ${placeOf(rule.origin, providerDir)} sha256:${digest}`;
}

function placeOf(origin: string | undefined, providerDir: string): string {
  if (origin === undefined) return "rules.yaml";
  const match = /^(.*?)(?::(\d+)(?::\d+)?)?$/su.exec(origin);
  const file = match?.[1] ?? origin;
  const line = match?.[2];
  const relative = path.relative(providerDir, file);
  const inside = relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
  const shown = inside ? relative.split(path.sep).join("/") : path.basename(file);
  return line === undefined ? shown : `${shown}:${line}`;
}
