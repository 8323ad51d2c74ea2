/**
 * The text form of an exact rule (exact-rule.ts): `/^text$/` or
 * `/^(?:text|text)$/`, each text a canonical call with every pattern character
 * escaped. Written here and read back here, so a rule the approval page wrote
 * is recognised as naming whole calls (file-writes.ts admits it for the
 * command it names) while any other regex stays a broad rule.
 */

/**
 * A token the joined text cannot delimit: an empty one, or one holding white
 * space (`a b` and the two tokens `a`, `b` join alike), or a control character.
 * No exact rule is written for a call with one, and none matches such a call.
 */
const UNNAMEABLE = /^$|[\s\p{Cc}]/u;

/** Whether every token can be told apart in the space-joined text an exact rule matches. */
export function nameableTokens(tokens: readonly string[]): boolean {
  return !tokens.some((token) => UNNAMEABLE.test(token));
}

/** The characters with a meaning in a `u`-mode pattern; each is written with a backslash. */
const PATTERN_SYNTAX = /[\\^$.*+?()[\]{}|/]/gu;
const SYNTAX_CHARACTER = /^[\\^$.*+?()[\]{}|/]$/u;

/** `text` as a pattern that matches exactly it. */
export function escapePattern(text: string): string {
  return text.replace(PATTERN_SYNTAX, (char) => `\\${char}`);
}

/** The exact rule for `texts` (at least one): one anchored alternative per text. */
export function exactPattern(texts: readonly string[]): string {
  const alternatives = texts.map(escapePattern);
  const body = alternatives.length === 1 ? (alternatives[0] as string) : `(?:${alternatives.join("|")})`;
  return `/^${body}$/`;
}

/**
 * The texts an exact rule names, or undefined for any other rule text (a
 * literal rule, a regex with flags, a class, a quantifier, an unescaped
 * syntax character): only the form exactPattern writes is read back.
 */
export function exactRuleTexts(rule: string): string[] | undefined {
  if (!rule.startsWith("/^") || !rule.endsWith("$/") || rule.length < 5) return undefined;
  let body = rule.slice(2, -2);
  const grouped = body.startsWith("(?:") && body.endsWith(")") && !escapedAt(body, body.length - 1);
  if (grouped) body = body.slice(3, -1);
  const texts: string[] = [];
  let text = "";
  for (let index = 0; index < body.length; index += 1) {
    const char = body[index] as string;
    if (char === "\\") {
      const next = body[index + 1];
      if (next === undefined || !SYNTAX_CHARACTER.test(next)) return undefined;
      text += next;
      index += 1;
    } else if (char === "|" && grouped) {
      texts.push(text);
      text = "";
    } else if (SYNTAX_CHARACTER.test(char)) {
      return undefined;
    } else {
      text += char;
    }
  }
  texts.push(text);
  return texts.every((one) => one !== "") ? texts : undefined;
}

/** Whether the character at `index` is escaped (an odd run of backslashes before it). */
function escapedAt(text: string, index: number): boolean {
  let run = 0;
  for (let at = index - 1; at >= 0 && text[at] === "\\"; at -= 1) run += 1;
  return run % 2 === 1;
}
