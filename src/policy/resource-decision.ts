/**
 * Deny and accept read per resource type (resource-types.ts): a call naming
 * several types is denied when a deny rule matches any of them, and accepted
 * only when an accept rule matches every one. A call read more than
 * MAX_RESOURCE_VIEWS ways throws: the engine turns it into a deny (fail closed).
 */
import type { EvaluationView } from "./evaluate.js";
import { canonicalCommand, type CompiledResourceTypes } from "./resource-types.js";
import { MAX_RESOURCE_VIEWS, resourceViews } from "./resource-views.js";
import type { RuleRef } from "./types.js";

/** The deciding rule of one list for one view, or undefined. */
export type ViewMatcher = (view: EvaluationView) => RuleRef | undefined;

/** The view with other positionals (a resource reading, a command's first name), its `joined` rebuilt. */
export function withPositionals(view: EvaluationView, positionals: readonly string[]): EvaluationView {
  const joined = [...positionals, ...view.options, ...(view.hasTail ? ["--", ...view.tail] : [])].join(" ");
  return { positionals, options: view.options, hasTail: view.hasTail, tail: view.tail, joined };
}

/**
 * The first deny rule that matches one of the call's resource types (types
 * without their `.group`). `callOptions` (before `ignore_args`: an ignored
 * selector still selects) read objects not given by name as any object.
 */
export function denyPerResource(
  view: EvaluationView,
  types: CompiledResourceTypes | undefined,
  match: ViewMatcher,
  callOptions: readonly string[],
): RuleRef | undefined {
  const views =
    types === undefined ? undefined : resourceViews(view.positionals, types, { dropGroup: true, limit: MAX_RESOURCE_VIEWS, anyObjectFrom: callOptions });
  if (views === undefined) return undefined;
  for (const positionals of views) {
    const rule = match(withPositionals(view, positionals));
    if (rule !== undefined) return rule;
  }
  return undefined;
}

/**
 * The accept rule of a call: for a call that names resource types, one must
 * match each type (the first type's is reported); otherwise the call as written.
 */
export function acceptPerResource(view: EvaluationView, types: CompiledResourceTypes | undefined, match: ViewMatcher): RuleRef | undefined {
  const views = types === undefined ? undefined : resourceViews(view.positionals, types, { dropGroup: false, limit: MAX_RESOURCE_VIEWS });
  if (views === undefined) return match(view);
  let first: RuleRef | undefined;
  for (const positionals of views) {
    const rule = match(withPositionals(view, positionals));
    if (rule === undefined) return undefined;
    first ??= rule;
  }
  return first;
}

/**
 * A call that spells a sub-command by an alias is read with the name the CLI
 * lists first, as literal rules are compiled (so it reports the rule its first
 * name would), then as written (a regex rule may name the alias): a deny
 * written with either alias matches; an accept matches only the command it
 * names, in any spelling.
 */
export function withCommandAliases(view: EvaluationView, types: CompiledResourceTypes | undefined, match: ViewMatcher): RuleRef | undefined {
  const command = types === undefined ? undefined : canonicalCommand(view.positionals, types);
  return (command === undefined ? undefined : match(withPositionals(view, command))) ?? match(view);
}
