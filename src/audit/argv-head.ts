/**
 * Which argv tokens an audit record may hold.
 *
 * Any option's value may be a credential the agent pasted (`--token X`,
 * `--password=X`, `-sX`, `-abX`, `--tok X`), and without the CLI's own option
 * table nobody can tell which token after an option is its value. So a record
 * keeps only the leading positionals: the tokens before the first one that
 * starts with "-", at most `max` of them. A caller that knows the grammar
 * passes the canonical positionals (option values already moved into the
 * options), so `kubectl -n x get pods` keeps `get pods`; a caller that does not
 * passes the raw argv and gets a shorter head that is still safe.
 */

/** The leading tokens of `tokens` that come before any option-like token, at most `max`. */
export function auditArgvHead(tokens: readonly unknown[], max: number): unknown[] {
  const head: unknown[] = [];
  for (const token of tokens) {
    if (head.length >= max || (typeof token === "string" && token.startsWith("-"))) break;
    head.push(token);
  }
  return head;
}
