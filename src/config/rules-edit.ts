/**
 * Adds or removes one rule in a `rules.yaml` the operator also edits by hand.
 *
 * The file is changed through the `yaml` Document API, so every comment, blank
 * line and quoting the operator wrote survives; only the one list item changes.
 * The new text is re-parsed with the same parser the server uses before it
 * replaces the file, and the replacement is atomic (state/atomic-write.ts): a
 * reader sees the old file or the new one. A file that does not parse is
 * refused with its file:line:col and left untouched. A file changed by someone
 * else between the read and the rename is refused too (nothing is lost).
 */
import { isDeepStrictEqual } from "node:util";
import { isAlias, isScalar, isSeq, parseDocument, visit, YAMLSeq } from "yaml";
import type { Document } from "yaml";
import type * as z from "zod";
import type { RuleList, RuleListSpec } from "../policy/types.js";
import { writeFileAtomic } from "../state/atomic-write.js";
import { ConfigError } from "./errors.js";
import { readConfigTextIfExists } from "./read-file.js";
import { parseRulesFile, rulesFileSchema } from "./rules-file.js";
import { parseYamlDocument } from "./yaml-document.js";

/** One change to one list of a rules file. */
export interface RuleEdit {
  readonly action: "add" | "remove";
  readonly list: RuleList;
  /** The rule text exactly as it is (or will be) written: literal tokens or `/pattern/flags`. */
  readonly rule: string;
}

/** What an edit did. */
export interface RuleEditResult {
  readonly file: string;
  /** False when the rule was already there (add) or not there (remove): the file was not written. */
  readonly changed: boolean;
  /** The file's lists before and after (equal when unchanged). */
  readonly before: RuleListSpec;
  readonly after: RuleListSpec;
  /** The file's new text (the old text when unchanged). */
  readonly text: string;
}

/** The text of a new, empty rules file. */
export const EMPTY_RULES_TEXT = 'version: "1"\ndeny: []\naccept: []\n';

/**
 * Applies `edit` to `text` (the contents of `file`), keeping comments and layout.
 * Pure: nothing is read or written.
 *
 * The edit is checked by meaning: the edited text, parsed again, must hold the
 * old version and lists with exactly this one rule added (at the end) or removed
 * and nothing else changed.
 *
 * @throws ConfigError with file:line:col when `text` does not parse as a rules
 *   file, or when the edited text would not (a blank or multi-line rule); and
 *   naming the file when the edit would change anything but the one rule (a list
 *   reached through a YAML merge key or an alias key) or the rule to remove is
 *   held through an alias.
 */
export function applyRuleEdit(file: string, text: string, edit: RuleEdit): { text: string; changed: boolean } {
  const before = rulesData(file, text);
  const present = before[edit.list].includes(edit.rule);
  if (edit.action === "add" ? present : !present) return { text, changed: false };
  const doc = parseDocument(text, { uniqueKeys: true, strict: true });
  const seq = listNode(file, doc, edit.list);
  if (edit.action === "add") {
    // An empty `accept: []` becomes a block list: one rule per line, as the operator writes them.
    if (seq.items.length === 0) seq.flow = false;
    seq.add(doc.createNode(edit.rule));
  } else if (!removeItems(file, doc, seq, edit)) {
    // The parsed list holds the rule, yet no item of the list written under `deny:`/`accept:` is it.
    throw new ConfigError(
      file,
      `its ${edit.list} rule ${JSON.stringify(edit.rule)} is not an item of a plain \`${edit.list}:\` list (it comes through a YAML merge key, an alias used as a key or the like), so it cannot be removed there; nothing was written (write the lists out plainly, e.g. with torii policy edit)`,
    );
  }
  const edited = doc.toString();
  const after = rulesData(file, edited);
  const expected = {
    ...before,
    [edit.list]: edit.action === "add" ? [...before[edit.list], edit.rule] : before[edit.list].filter((rule) => rule !== edit.rule),
  };
  if (!isDeepStrictEqual(after, expected)) {
    // Judged by meaning, not by the shape of the YAML: a list reached through a merge key (`<<:`), a key written as
    // an alias (`*k : [...]`), a tag or any other construct the edit did not see would otherwise gain a second key
    // of the same name, the last of which wins, and silently drop rules (a deny dropped is a call allowed).
    throw new ConfigError(
      file,
      `the ${edit.list} list is not written as a plain \`${edit.list}:\` list (a YAML merge key, an alias used as a key, a tag or the like), so ${edit.action === "add" ? "adding" : "removing"} ${JSON.stringify(edit.rule)} would change the file's rules in another way than that one rule; nothing was written (write the lists out plainly, e.g. with torii policy edit)`,
    );
  }
  return { text: edited, changed: true };
}

/** The validated data of a rules file: version, deny and accept, and nothing else (the schema is strict). */
function rulesData(file: string, text: string): z.output<typeof rulesFileSchema> {
  return parseYamlDocument(file, text, rulesFileSchema).value;
}

/**
 * Removes every plain item of `seq` that is `edit.rule`; false when there was none.
 * Refuses a rule held through an alias, or anchored and aliased.
 */
function removeItems(file: string, doc: Document, seq: YAMLSeq, edit: RuleEdit): boolean {
  let removedAny = false;
  for (const item of seq.items) {
    if (!isAlias(item)) continue;
    const target = item.resolve(doc);
    if (isScalar(target) && target.value === edit.rule) {
      throw new ConfigError(
        file,
        `its ${edit.list} rule ${JSON.stringify(edit.rule)} is written as the YAML alias *${item.source} of a rule anchored elsewhere in the file, so it cannot be removed from the ${edit.list} list alone without changing the anchored one; nothing was written (write the rule out in full, e.g. with torii policy edit)`,
      );
    }
  }
  for (let index = seq.items.length - 1; index >= 0; index -= 1) {
    const removed = seq.items[index];
    if (!isScalar(removed) || removed.value !== edit.rule) continue;
    if (removed.anchor !== undefined && aliased(doc, removed.anchor)) {
      throw new ConfigError(
        file,
        `its ${edit.list} rule ${JSON.stringify(edit.rule)} is anchored and used again through an alias, so removing it would change the other place too; nothing was written`,
      );
    }
    const next = seq.items[index + 1];
    // A heading comment above the removed rule belongs to the rules after it.
    if (removed.commentBefore && isScalar(next)) {
      next.commentBefore = next.commentBefore ? `${removed.commentBefore}\n${next.commentBefore}` : removed.commentBefore;
    }
    seq.delete(index);
    removedAny = true;
  }
  return removedAny;
}

function listNode(file: string, doc: Document, list: RuleList): YAMLSeq {
  const node = doc.get(list, true);
  // A list written as an alias (`deny: *shared`) or anchored and aliased elsewhere is one list under two names:
  // replacing the alias dropped every rule it held, and editing the anchored list edits the other too.
  if (isAlias(node) || (isSeq(node) && node.anchor !== undefined && aliased(doc, node.anchor))) {
    throw new ConfigError(
      file,
      `its ${list} list is shared through a YAML anchor and alias, so an edit of one list would change the other; nothing was written (write the list out in full, e.g. with torii policy edit)`,
    );
  }
  if (isSeq(node)) return node;
  // parseRulesFile has accepted the file, so a missing list is simply absent (it defaults to empty).
  const seq = new YAMLSeq();
  doc.set(list, seq);
  return seq;
}

/** Whether an alias in `doc` refers to the anchor `name`. */
function aliased(doc: Document, name: string): boolean {
  let found = false;
  visit(doc, {
    Alias(_key, alias) {
      if (alias.source !== name) return undefined;
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/** Options for `editRulesFile`. */
export interface EditRulesFileOptions {
  /**
   * Create the file (from EMPTY_RULES_TEXT) when it does not exist. A target's
   * own rules.yaml replaces the provider's accept list for that target, so the
   * caller decides, with the simulation in front of the operator.
   */
  readonly create?: boolean;
}

/**
 * Reads `file`, applies `edit`, validates the result and replaces the file atomically.
 *
 * @throws ConfigError with file:line:col when the file does not parse (it is left
 *   untouched), when it is missing and `create` is not set, or when it changed
 *   while being edited.
 */
export async function editRulesFile(file: string, edit: RuleEdit, options: EditRulesFileOptions = {}): Promise<RuleEditResult> {
  const existing = readConfigTextIfExists(file);
  if (existing === undefined && options.create !== true) throw new ConfigError(file, "file not found");
  const original = existing ?? EMPTY_RULES_TEXT;
  const { text, changed } = applyRuleEdit(file, original, edit);
  const before = parseRulesFile(file, original);
  if (!changed && existing !== undefined) return { file, changed: false, before, after: before, text };
  await replaceRulesText(file, text, existing);
  return { file, changed: true, before, after: parseRulesFile(file, text), text };
}

/**
 * Replaces `file` with `text` after validating it as a rules file, atomically,
 * unless the file no longer holds `expected` (undefined: it did not exist).
 *
 * @throws ConfigError when `text` does not parse (file:line:col; nothing is
 *   written) or the file changed since it was read.
 */
export async function replaceRulesText(file: string, text: string, expected: string | undefined): Promise<void> {
  parseRulesFile(file, text);
  await writeFileAtomic(file, Buffer.from(text, "utf8"), {
    beforeCommit: () => {
      if (currentText(file) !== expected) throw new ConfigError(file, "changed while it was being edited; nothing was written, try again");
    },
  });
}

/** The file's text now; undefined when it is absent. Anything else that is not a regular file (a named pipe put there) is refused. */
function currentText(file: string): string | undefined {
  return readConfigTextIfExists(file);
}
