/**
 * Which objects a kubectl call acts on, when they are not given as literal
 * names. A deny rule that names an object (`delete secrets prod-db`) must also
 * match a call that reaches it another way, so for deny rules such a call is
 * read as naming "any object" (fail closed):
 *
 * - a selector (`-l`, `--field-selector`, `--all`, `--all-namespaces`): any name of each type;
 * - a manifest (`-f`, `-k`, `-R`, `--raw PATH`): any type, any name;
 * - a type with no name at all (`get secrets -o yaml` lists every secret): any name of it;
 * - a named command's controller (`exec sts/db` reaches pod `db-0`): any object of the default type.
 *
 * The "any" word is a wildcard only when deny rules are matched; accept rules
 * compare it as a word no rule holds, so an accept naming an object never
 * accepts it, and an accept of the whole type or verb still does.
 */

/** A word no argv token or rule word can hold (an exec argument ends at its first NUL): any type or name. */
export const ANY_OBJECT = "\u0000any";

/** How a call gives its objects: by name (or not at all), by a selector, or in a manifest. */
export type ObjectSet = "names" | "selected" | "manifest";

/** The options of a resource table that choose objects other than by name. */
export interface ObjectOptions {
  readonly selectors: ReadonlySet<string>;
  readonly manifests: ReadonlySet<string>;
}

/** How the call's canonical options (`--name[=value]`) give its objects. */
export function objectSetOf(options: readonly string[], table: ObjectOptions): ObjectSet {
  let set: ObjectSet = "names";
  for (const option of options) {
    const equals = option.indexOf("=");
    const name = equals === -1 ? option : option.slice(0, equals);
    if (table.manifests.has(name)) return "manifest";
    if (table.selectors.has(name)) set = "selected";
  }
  return set;
}

/** How many items a comma-separated list holds, without splitting it. */
export function listLength(operand: string): number {
  let count = 1;
  for (let at = operand.indexOf(","); at !== -1; at = operand.indexOf(",", at + 1)) count += 1;
  return count;
}

/**
 * Whether a deny-matching reading word matches a rule word: ANY_OBJECT
 * matches every word, so a reading of "any object" is matched by every rule
 * about one object of the type (or of any type).
 */
export function denyWordMatches(ruleWord: string, readingWord: string): boolean {
  return readingWord === ruleWord || readingWord === ANY_OBJECT;
}
