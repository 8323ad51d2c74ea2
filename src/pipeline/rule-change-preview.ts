/**
 * A rules file change seen before it is written: the effective-rule diff, the
 * rules that would not compile, and its simulation against recent audited
 * calls (policy/rule-simulation.ts), for every scope the file is in force for.
 * A provider's shared file is in force for calls without a target and for
 * every target (a target's own file replaces only the shared accepts); a
 * target's file only for that target. Used by `torii policy edit`, `torii
 * setup` and the approval page's permanent choices.
 */
import type { RecentCall } from "../audit/recent-calls.js";
import { readPolicyTexts, type ProviderEntry } from "../config/registry.js";
import { applyRuleEdit, EMPTY_RULES_TEXT, type RuleEdit } from "../config/rules-edit.js";
import { parseRulesFile } from "../config/rules-file.js";
import { compilePolicy, type CompiledPolicy, type RuleError } from "../policy/compile.js";
import { diffRules, simulatePolicyChange, type HeadOutcome, type RuleDiff } from "../policy/rule-simulation.js";
import type { LayeredRuleSpecs } from "../policy/types.js";

/** A rules file and the text it would hold. */
export interface RulesReplacement {
  readonly file: string;
  readonly text: string;
  /** The name messages give the new text (a draft being edited); `file` by default. */
  readonly source?: string;
}

/** The simulation for the calls of one scope (`tool` or `tool/target`). */
export interface ScopePreview {
  readonly scope: string;
  readonly outcomes: readonly HeadOutcome<RecentCall>[];
}

/** What a rules change would do. */
export interface RuleChangePreview {
  readonly file: string;
  /** The effective rules added and removed, in the scope the file belongs to. */
  readonly diff: RuleDiff;
  /** Rules that would not compile: while any exists, every call in scope is denied. */
  readonly errors: readonly RuleError[];
  readonly scopes: readonly ScopePreview[];
}

/** The scopes (target alias or undefined for none) a rules file is in force for. */
function scopesOf(entry: ProviderEntry, file: string): (string | undefined)[] {
  if (file === entry.rulesPath) return [undefined, ...entry.targets.keys()];
  for (const [alias, target] of entry.targets) if (target.rulesPath === file) return [alias];
  throw new Error(`${file} is not a rules file of provider ${entry.tool}`);
}

/**
 * The policies in force for one scope now and with `replacement` in place.
 *
 * @throws ConfigError when a rules file in force (or the replacement) does not parse.
 */
export function policiesWith(
  entry: ProviderEntry,
  targetAlias: string | undefined,
  replacement: RulesReplacement,
): { before: CompiledPolicy; after: CompiledPolicy } {
  const texts = readPolicyTexts(entry, targetAlias);
  const parse = (file: string, text: string) => parseRulesFile(file, text);
  const before: LayeredRuleSpecs = {
    shared: parse(texts.shared.file, texts.shared.text),
    ...(texts.target ? { target: parse(texts.target.file, texts.target.text) } : {}),
  };
  const ownFile = targetAlias === undefined ? undefined : entry.targets.get(targetAlias)?.rulesPath;
  const replaced = parse(replacement.source ?? replacement.file, replacement.text);
  const after: LayeredRuleSpecs =
    replacement.file === entry.rulesPath ? { ...before, shared: replaced } : replacement.file === ownFile ? { ...before, target: replaced } : before;
  return { before: compilePolicy(entry.policyContext, before), after: compilePolicy(entry.policyContext, after) };
}

/**
 * Previews replacing a rules file of `entry` with `replacement.text`.
 *
 * @throws ConfigError when a rules file in force, or the new text, does not parse.
 */
export function previewRulesChange(entry: ProviderEntry, replacement: RulesReplacement, calls: readonly RecentCall[]): RuleChangePreview {
  const scopes = scopesOf(entry, replacement.file);
  const own = policiesWith(entry, scopes.length === 1 ? scopes[0] : undefined, replacement);
  return {
    file: replacement.file,
    diff: diffRules(own.before, own.after),
    errors: own.after.errors,
    scopes: scopes.map((alias) => {
      const scope = alias === undefined ? entry.tool : `${entry.tool}/${alias}`;
      const { before, after } = alias === undefined ? own : policiesWith(entry, alias, replacement);
      return {
        scope,
        outcomes: simulatePolicyChange(
          before,
          after,
          calls.filter((call) => call.scope === scope),
        ),
      };
    }),
  };
}

/**
 * Previews one rule edit of the shared file (no alias) or a target's file.
 * Returns the new text too, for `replaceRulesText` once the operator agrees.
 *
 * @throws ConfigError when a rules file does not parse or the rule is not a valid rules.yaml item.
 */
export function previewRuleEdit(
  entry: ProviderEntry,
  targetAlias: string | undefined,
  edit: RuleEdit,
  calls: readonly RecentCall[],
): RuleChangePreview & { readonly text: string; readonly changed: boolean; readonly previous: string | undefined } {
  const file = targetAlias === undefined ? entry.rulesPath : rulesFileOfTarget(entry, targetAlias);
  const texts = readPolicyTexts(entry, targetAlias);
  const previous = file === entry.rulesPath ? texts.shared.text : texts.target?.text;
  const { text, changed } = applyRuleEdit(file, previous ?? EMPTY_RULES_TEXT, edit);
  return { ...previewRulesChange(entry, { file, text }, calls), text, changed, previous };
}

function rulesFileOfTarget(entry: ProviderEntry, alias: string): string {
  const target = entry.targets.get(alias);
  if (target === undefined) throw new Error(`provider ${entry.tool} has no target ${JSON.stringify(alias)}`);
  return target.rulesPath;
}
