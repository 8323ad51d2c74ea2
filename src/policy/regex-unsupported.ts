/**
 * Names what the linear-time engine refused. RE2's own parser decides what it
 * cannot run (no hand-kept list of constructs); this only puts a name on the
 * usual suspects, so the operator reads "a lookahead" rather than
 * "invalid or unsupported Perl syntax".
 */

/** The refusal as re2js reports it: `error` is the kind, `input` the text it stopped at. */
interface EngineSyntaxError {
  readonly message: string;
  readonly error?: unknown;
  readonly input?: unknown;
}

const NAMED: readonly { readonly at: RegExp; readonly name: string }[] = [
  { at: /^\\[1-9]/u, name: "a backreference (\\1…)" },
  { at: /^\\k/u, name: "a named backreference (\\k<name>)" },
  { at: /^\(\?=/u, name: "a lookahead (?=…)" },
  { at: /^\(\?!/u, name: "a negative lookahead (?!…)" },
  { at: /^\(\?<=/u, name: "a lookbehind (?<=…)" },
  { at: /^\(\?<!/u, name: "a negative lookbehind (?<!…)" },
];

/**
 * A readable message for a pattern the linear-time engine refused: the
 * construct's name when it is one of the backtracking-only ones, and always the
 * engine's own words (its kind of error, not the part of the pattern it quotes).
 */
export function describeEngineRefusal(error: unknown): string {
  const refusal = error as EngineSyntaxError;
  const input = typeof refusal.input === "string" ? refusal.input : "";
  // The engine's words without the part of the pattern it quotes (a rule's text can hold option values).
  const words = typeof refusal.error === "string" ? `error parsing regexp: ${refusal.error}` : "error parsing regexp";
  const named = NAMED.find((entry) => entry.at.test(input));
  if (named !== undefined) {
    return `${named.name} needs a backtracking engine; rules run on a linear-time engine, so it is not supported (${words})`;
  }
  if (refusal.error === "invalid repeat count") {
    return `a repetition count above 1000, or repetitions nested past the engine's size limit, is not supported (${words})`;
  }
  return `the linear-time regex engine refuses this pattern (${words})`;
}
