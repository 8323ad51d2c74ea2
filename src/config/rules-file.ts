/**
 * `rules.yaml`: the operator's deny and accept lists for a provider (shared) or
 * one target. Read afresh on every call, so each rule carries the place it was
 * written for decisions and `torii_policy` to cite.
 */
import * as z from "zod";
import type { RuleListSpec, RuleSpec } from "../policy/types.js";
import { singleLineSchema, versionSchema } from "./common-fields.js";
import { parseYamlDocument } from "./yaml-document.js";
import type { YamlDocument } from "./yaml-document.js";

const ruleSchema = singleLineSchema().refine((rule) => rule.trim() !== "", { error: "must not be blank" });

/** The schema of `rules.yaml`. */
export const rulesFileSchema = z.strictObject({
  version: versionSchema,
  deny: z.array(ruleSchema).default([]),
  accept: z.array(ruleSchema).default([]),
});

/**
 * Parses the text of a rules file. Each rule's `origin` is `<file>:<line>:<column>`
 * of its list item.
 *
 * @throws ConfigError with the file, line and column of each problem.
 */
export function parseRulesFile(file: string, text: string): RuleListSpec {
  const doc = parseYamlDocument(file, text, rulesFileSchema);
  return { deny: withOrigins(doc, "deny"), accept: withOrigins(doc, "accept") };
}

function withOrigins(doc: YamlDocument<z.output<typeof rulesFileSchema>>, list: "deny" | "accept"): RuleSpec[] {
  return doc.value[list].map((text, index) => {
    const position = doc.positionOf([list, index]);
    const origin = position === undefined ? doc.file : `${doc.file}:${position.line}:${position.column}`;
    return { text, origin };
  });
}
