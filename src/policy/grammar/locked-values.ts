/**
 * Values that do what a locked global option does, wherever they appear.
 *
 * Locking `--subscription` (az) or `--project` (gcloud) pins nothing when a
 * command's own argument names the scope instead: az sends a request to the
 * subscription a full resource ID names (`--scope /subscriptions/OTHER`,
 * `tag list --resource-id …`, a positional), gcloud to the project a full
 * resource name or URI names (`secrets describe projects/OTHER/secrets/s`,
 * `https://…googleapis.com/…/projects/OTHER/…`). Hundreds of options take such
 * values, and any positional may, so the check reads every token of the call
 * (option values, `--opt=value`, clusters with a glued value, positionals, the
 * `--` tail) and is keyed on the value, not on the option that carries it.
 */
import type { ArgvRejection, LockedValue } from "./types.js";

/** A locked value as compared: its text lower-cased. */
export interface CompiledLockedValue extends LockedValue {
  readonly needle: string;
}

/** Lower-cases each row's text once, for the per-token comparison. */
export function compileLockedValues(rows: readonly LockedValue[] | undefined): readonly CompiledLockedValue[] {
  return (rows ?? []).map((row) => ({ ...row, needle: row.contains.toLowerCase() }));
}

const PERCENT_ESCAPE = /%([0-9a-f]{2})/giu;

/**
 * The token as a server could read it after URL decoding, repeated until
 * nothing changes (`%252F` is `%2F` is `/`): a CLI that puts the value in a
 * request path may leave it to the server to decode. Each round shortens the
 * text, so the loop ends.
 */
function decoded(token: string): string {
  let current = token;
  for (;;) {
    const next = current.replace(PERCENT_ESCAPE, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === current) return current;
    current = next;
  }
}

/** The token with only `%2F` (and the `%25` that may encode its `%`) decoded, repeatedly. */
function slashesDecoded(token: string): string {
  let current = token;
  for (;;) {
    const next = current.replace(/%2f/giu, "/").replace(/%25/gu, "%");
    if (next === current) return current;
    current = next;
  }
}

/**
 * The rejection for a token holding a locked value; `undefined` when it holds
 * none. The reason names the row, never the token (a value may be a secret).
 */
export function findLockedValue(token: string, index: number, rows: readonly CompiledLockedValue[]): ArgvRejection | undefined {
  if (rows.length === 0) return undefined;
  // The token as written, with only its encoded slashes decoded, and fully decoded: a row starting
  // with a hex digit after a `%` (`%afolders%2F`) loses its first letter to the full decoding.
  const texts = [token, ...(token.includes("%") ? [slashesDecoded(token), decoded(token)] : [])].map((text) => text.toLowerCase());
  const row = rows.find((candidate) => texts.some((text) => text.includes(candidate.needle)));
  if (row === undefined) return undefined;
  return {
    kind: "locked-option",
    token,
    index,
    option: row.option,
    reason:
      `argument ${index} holds "${row.contains}": it names ${row.names}, which does what ${row.option} does. ` +
      `Torii controls ${row.option} for this provider and does not compare scopes, so such a value is refused in every argument, ` +
      `and no rule, grant or approval can allow it; name the resource by its short name, in the scope the operator pinned`,
  };
}
