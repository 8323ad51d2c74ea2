/**
 * Fetched values in an argparse body: the command's own options, which Torii
 * does not model (they stay positional, in order), read as the command's parser
 * reads them. Used for AWS CLI v1 (every value) and for named body options (az).
 */
import { bodyOption } from "./body-option.js";
import { DOWNLOAD, fetchedValueRejection, hasUrlElement, loadsUrlInShorthand, startsWithUrl, type SitedToken } from "./fetched-value-kinds.js";
import type { ArgvRejection, LiteralUrlParameter } from "./types.js";

/** Literal parameters by option name. */
export type LiteralTable = ReadonlyMap<string, readonly LiteralUrlParameter[]>;

/** The leading words of the body: the command path (and operands before the first option). */
function commandWords(body: readonly SitedToken[]): string[] {
  const words: string[] = [];
  for (const site of body) {
    if (site.token.startsWith("-")) break;
    words.push(site.token);
  }
  return words;
}

function literalFor(literal: LiteralTable, option: string, words: readonly string[]): LiteralUrlParameter | undefined {
  return literal.get(option)?.find((parameter) => parameter.command.every((word, i) => words[i] === word));
}

/**
 * AWS CLI v1: every operand and operation-option value. A URL is literal only
 * right after the full name of a literal parameter (`--queue-url X`,
 * `--queue-url=X`) or, for a list parameter, anywhere up to the next option.
 */
export function checkEveryBodyValue(literal: LiteralTable, body: readonly SitedToken[]): ArgvRejection | undefined {
  const words = commandWords(body);
  let pending: { name: string; literal: LiteralUrlParameter | undefined; taken: number } | undefined;
  for (const site of body) {
    const token = site.token;
    if (token.startsWith("-")) {
      const equals = token.indexOf("=");
      const name = equals === -1 ? token : token.slice(0, equals);
      const parameter = literalFor(literal, name, words);
      pending = equals === -1 ? { name, literal: parameter, taken: 0 } : undefined;
      const value = token.slice(equals + 1);
      if (equals !== -1 && ((startsWithUrl(value) && parameter === undefined) || loadsUrlInShorthand(value))) {
        return fetchedValueRejection(site, value, name, DOWNLOAD);
      }
      continue;
    }
    const exempt = pending?.literal !== undefined && (pending.taken === 0 || pending.literal.list);
    if ((startsWithUrl(token) && !exempt) || loadsUrlInShorthand(token)) return fetchedValueRejection(site, token, pending?.name, DOWNLOAD);
    if (pending !== undefined) pending.taken += 1;
  }
  return undefined;
}

/** Named body options (az `--template-uri`, `--parameters`): a URL element in any of their values. */
export function checkBodyUrlOptions(options: ReadonlySet<string>, body: readonly SitedToken[]): ArgvRejection | undefined {
  const names = [...options];
  let current: string | undefined;
  for (const site of body) {
    if (site.token.startsWith("-")) {
      const found = bodyOption(site.token, names);
      current = found !== undefined && found.value === undefined ? found.name : undefined;
      if (found?.value !== undefined && hasUrlElement(found.value)) return fetchedValueRejection(site, found.value, found.name, DOWNLOAD);
      continue;
    }
    if (current !== undefined && hasUrlElement(site.token)) return fetchedValueRejection(site, site.token, current, DOWNLOAD);
  }
  return undefined;
}
