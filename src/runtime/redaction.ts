/**
 * Redaction of the secrets Torii injects into a child: every value taken from
 * a credential source (`.env` files, stored `environment` fields) is replaced
 * by `[redacted:NAME]` wherever it shows up in text Torii hands on — the
 * child's output, error messages and audit records. One redactor per call,
 * used for all three, so they cannot disagree; the compiled patterns of a
 * recent set of values are kept for the next call with the same values.
 *
 * Each value is searched in the spellings a CLI commonly prints it in
 * (secret-forms.ts): one pattern in which every character may appear as
 * itself or any of its escapes (JSON, Go, Python, URL, HTML, YAML and shell
 * quoting), searched in linear time (spelling-search.ts: a lazy DFA, and a
 * Pike scan where a spelling ended), and base64 (standard and URL-safe, at the
 * three byte alignments it can have inside a longer encoded blob). Each text is
 * searched as it is and in its normalised view (normalised-view.ts: without
 * NULs, control characters, ANSI escapes and zero-width marks), whose spans
 * are mapped back. The search runs in slices (`spans`), so a large output
 * never holds the server's event loop for long (redact-output.ts). Values under MIN_REDACTED_LENGTH characters,
 * not counting blanks and line breaks around them, are left alone:
 * masking `true` or `eu-west-1`'s shorter cousins everywhere would wreck the
 * output and protect nothing an attacker could not guess (docs/security-model.md).
 *
 * Pure: no I/O, no imports from the rest of Torii.
 */
import { normalisedView, type NormalisedView } from "./normalised-view.js";
import { partialBlocks } from "./partial-values.js";
import { blobForms, caseForm } from "./secret-forms.js";
import { SpellingAutomaton } from "./spelling-automaton.js";
import { compileLiteral, compileSpellings, findSpellings, spellingSet, type Span, type SpellingPattern, type SpellingSet } from "./spelling-matcher.js";
import { searchSpellings } from "./spelling-search.js";

export type { Span } from "./spelling-matcher.js";

/** Shortest value that is redacted, in UTF-16 code units, not counting blanks and line breaks around it. */
export const MIN_REDACTED_LENGTH = 8;

/**
 * How many characters of raw text one character of a spelling may stand for
 * once the normalised view removed what stood between (a UTF-16 NUL and a
 * colour code per character fit well within it).
 */
const NORMALISED_SPREAD = 16;

/** Texts from this length on are searched with the DFA (spelling-automaton.ts), shorter ones with the Pike scan alone. */
const DFA_FROM = 4096;

/** A value Torii injected, and the variable it was injected as (the marker names it). */
export interface SecretValue {
  readonly name: string;
  readonly value: string;
}

export interface Redactor {
  /** True when there is at least one value to look for. */
  readonly active: boolean;
  /** The most characters of text one masked span can cover (for searches across the two output streams). */
  readonly reach: number;
  /**
   * Replaces every spelling of every secret by its marker. With `cut`, the
   * text was cut short (output cap, timeout): its tail, where a leaked start
   * of a spelling would be, is masked too, whatever it holds (CUT_TAIL_MARKER).
   */
  redact(text: string, options?: { readonly cut?: boolean }): string;
  /**
   * The spans `redact` replaces, found in slices of bounded work: the
   * generator yields between them, so a caller can let its event loop run.
   */
  spans(text: string, cut: boolean): Generator<void, Span[], void>;
}

/** The marker that stands for the value of `name`. */
export function redactionMarker(name: string): string {
  return `[redacted:${name}]`;
}

/** A redactor that changes nothing (calls that inject no credential). */
export const NO_REDACTION: Redactor = {
  active: false,
  reach: 0,
  redact: (text) => text,
  // eslint-disable-next-line require-yield -- nothing to search
  spans: function* () {
    return [];
  },
};

/** Runs a sliced search to its end at once (text small enough, or a caller with no event loop to keep). */
export function completed<T>(work: Generator<void, T, void>): T {
  for (;;) {
    const step = work.next();
    if (step.done === true) return step.value;
  }
}

/** Builds the redactor for these values; values shorter than MIN_REDACTED_LENGTH once trimmed are ignored (usedForms). */
export function createRedactor(secrets: Iterable<SecretValue>): Redactor {
  const compiled = compiledSet([...secrets]);
  if (compiled === undefined) return NO_REDACTION;
  const set: SpellingSet = compiled;
  // No span is longer than the longest spelling, in the text or in its normalised view.
  const { longest } = set;
  const tailMask = cutTailLength(longest);
  // Each search (a text and its normalised view, one after the other) builds its own DFA: a state is an
  // index into the DFA's tables, which another search paused between its slices could drop and rebuild
  // (spelling-automaton.ts) under this one's feet, whether another call's or this redactor's own.
  function* spans(text: string, cut: boolean): Generator<void, Span[], void> {
    const found: Span[] = [];
    if (text === "") return found;
    let automaton: SpellingAutomaton | undefined;
    function* search(searched: string, into: Span[]): Generator<void, void, void> {
      // A short text (an error message, an audit field) costs less to scan than the DFA states it would build.
      // Whole spellings only: at a cut, the tail is masked whatever it holds (cutTail).
      if (searched.length < DFA_FROM) yield* findSpellings(searched, set, { from: 0, to: searched.length }, into);
      else yield* searchSpellings(searched, set, (automaton ??= new SpellingAutomaton(set)), into);
    }
    yield* search(text, found);
    // The normalised view (normalised-view.ts): spans found there are mapped back onto the text.
    const view = yield* normalisedView(text);
    if (view !== undefined) {
      const inView: Span[] = [];
      yield* search(view.text, inView);
      for (const span of inView) found.push({ start: view.originOf(span.start), end: view.originOf(span.end - 1) + 1, marker: span.marker });
    }
    if (cut) {
      found.push(cutTail(text, view, tailMask));
      // A value whose spelling is longer than the tail (cutTailLength's cap) may have begun before it.
      if (longest > tailMask) {
        let start = yield* openAtCut(text, set, longest, tailMask);
        if (view !== undefined) {
          const inView = yield* openAtCut(view.text, set, longest, tailMask);
          if (inView < view.text.length) start = Math.min(start, view.originOf(inView));
        }
        if (start < text.length) found.push({ start, end: text.length, marker: CUT_TAIL_MARKER });
      }
    }
    return found;
  }
  return {
    active: true,
    reach: longest * NORMALISED_SPREAD,
    redact: (text, options = {}) => replaceSpans(text, completed(spans(text, options.cut === true))),
    spans,
  };
}

/**
 * The marker of the end of a cut text. It names no variable: which value, if
 * any, the tail began to spell is exactly what it must not say.
 */
export const CUT_TAIL_MARKER = redactionMarker("cut-output-tail");

/** The shortest cut tail masked, in UTF-16 units. */
const MIN_CUT_TAIL = 64;
/**
 * The longest cut tail masked whatever it holds: 32 KiB covers a leaked start
 * of any spelling of a value up to about 5 400 characters (a 4096-bit PEM key
 * in `\u` escapes) and of a plain one up to 32 KiB. A longer value (a CA
 * bundle, a kubeconfig pasted into `.env`) would otherwise swallow every cut
 * output whole; for it, a text cut inside its spelling is masked from where
 * that spelling began (openAtCut), decided by the text before the tail only,
 * so the tail's characters are no oracle either.
 */
const MAX_CUT_TAIL = 32 * 1024;

/**
 * Where the earliest spelling still under way where the masked tail begins
 * (`tail` characters before the end of `searched`) began, within `longest`
 * characters before that place (no spelling is longer); `searched.length`
 * when none is.
 *
 * Not where the text ends: whether a spelling is still under way there
 * depends on the text's last character, and an agent that knows more than
 * the tail's length of a long value's start (the public certificates of a
 * bundle, a kubeconfig's cluster part) and makes the child print it and one
 * guessed character, cut right after, would see by the head's mask whether
 * the guess was right, one character per guess set. Where the tail begins,
 * the text before it decides, which the tail's own mask leaves no guess in.
 */
function* openAtCut(searched: string, set: SpellingSet, longest: number, tail: number): Generator<void, number, void> {
  const tailStart = Math.max(0, searched.length - tail);
  const start = yield* findSpellings(searched, set, { from: Math.max(0, tailStart - longest), to: tailStart }, []);
  return start < tailStart ? start : searched.length;
}

/**
 * How many characters at the end of a cut text are masked: enough for the
 * longest spelling (any leaked start of one lies within it), rounded up to a
 * power of two, so the kept part of a cut output says only which coarse size
 * class the longest value falls in, never its exact length nor whether it holds
 * a character whose escapes are longer (`é`, `€`, an emoji); capped at MAX_CUT_TAIL.
 */
function cutTailLength(longest: number): number {
  let length = MIN_CUT_TAIL;
  while (length < longest && length < MAX_CUT_TAIL) length *= 2;
  return Math.min(length, MAX_CUT_TAIL);
}

/**
 * The tail of a cut text that is masked whatever it holds: its last `length`
 * characters and those standing for the last `length` characters of its
 * normalised view.
 *
 * Masking only a tail that does start a value's spelling would be an oracle:
 * a child whose output the agent chooses (an object it wrote, a log it fills,
 * the echo of its own argument) and that is cut (the output cap, the timeout)
 * right after a guessed character shows by the marker whether a value starts
 * with it, then with the next one, and so on, one call per guess. The tail
 * masked here depends on the text and on the size class of the longest
 * spelling (cutTailLength), never on the values' characters.
 */
function cutTail(text: string, view: NormalisedView | undefined, length: number): Span {
  let start = Math.max(0, text.length - length);
  if (view !== undefined && view.text.length > 0) start = Math.min(start, view.originOf(Math.max(0, view.text.length - length)));
  return { start, end: text.length, marker: CUT_TAIL_MARKER };
}

/**
 * The patterns of recent secret sets, by the secrets in order (names and values):
 * a server's calls inject the same `.env` values call after call, and compiling
 * every spelling and fixed form of each value cost about 25-60 µs of CPU per value
 * and call. Patterns are immutable; a DFA built over them is not, and lives for one search.
 * The kept sets hold the values in memory between calls, as the server's own
 * memory held them during one: whoever can read it can read the `.env` files too.
 */
const recentSets = new Map<string, SpellingSet | undefined>();
/** Sets kept: a server's providers and targets have a few distinct `.env` combinations. */
const RECENT_SETS = 8;

function compiledSet(secrets: readonly SecretValue[]): SpellingSet | undefined {
  const key = JSON.stringify(secrets.map(({ name, value }) => [name, value]));
  if (recentSets.has(key)) {
    const set = recentSets.get(key);
    // Most recently used last: the oldest is the first dropped.
    recentSets.delete(key);
    recentSets.set(key, set);
    return set;
  }
  const set = compileSet(secrets);
  if (recentSets.size >= RECENT_SETS) recentSets.delete(recentSets.keys().next().value as string);
  recentSets.set(key, set);
  return set;
}

/**
 * The value as a CLI uses it: without the blanks and line breaks around it (a
 * double-quoted `.env` value keeps what the operator pasted; a CLI strips it
 * before it sends or prints the token), and as its own normalised view (a
 * multi-line value, a PEM key, without its line breaks: printed as one line,
 * or re-wrapped at another width, which the text's normalised view turns into
 * that same line). The value with its blanks around is not searched for: it
 * holds the trimmed form, whose span leaves out only those blanks, and each
 * form searched for costs a pattern of its length in each of its spellings.
 */
function usedForms(value: string): string[] {
  const joined = completed(normalisedView(value))?.text;
  const forms = [value.trim(), ...(joined === undefined ? [] : [joined.trim()])];
  // The length rule counts what a form holds besides blanks around it: a value of spaces or line breaks, or a
  // short one padded to length, would otherwise mask JSON indentation, `++++++++` (a space's URL form), a blank line.
  return [...new Set(forms)].filter((form) => form.length >= MIN_REDACTED_LENGTH);
}

function compileSet(secrets: readonly SecretValue[]): SpellingSet | undefined {
  const spelled = new Map<string, SpellingPattern>();
  const fixed = new Map<string, SpellingPattern>();
  for (const secret of secrets) {
    // The first (a longer-lived layer's name is as good as any) wins for a value injected twice.
    const marker = redactionMarker(secret.name);
    const forms = usedForms(secret.value);
    for (const form of forms) {
      if (spelled.has(form)) continue;
      spelled.set(form, compileSpellings(form, marker));
      const cased = caseForm(form);
      // A JSON document holding the value, base64-encoded (a Kubernetes secret's data, a JWT's payload, a
      // `--cli-input-json` body in a log): the value's bytes there are its JSON-escaped form's.
      const escaped = JSON.stringify(form).slice(1, -1);
      const blobs = [...blobForms(form), ...(escaped === form ? [] : blobForms(escaped))];
      for (const { text, variants } of [...blobs, ...(cased === undefined ? [] : [cased])]) {
        const key = `${JSON.stringify(variants)}\u0000${text}`;
        if (text.length >= MIN_REDACTED_LENGTH && !fixed.has(key)) fixed.set(key, compileLiteral(text, marker, variants));
      }
    }
    // A long value's pieces (partial-values.ts), from its last used form: without its own line breaks when it
    // has some, which the text's normalised view also removes.
    // As printed (no escapes): a piece of a value in a structure is rare, and escaped pieces cost a trie per character.
    for (const block of partialBlocks(forms.at(-1) ?? "")) {
      if (!fixed.has(block)) fixed.set(block, compileLiteral(block, marker));
    }
  }
  // The fixed forms are patterns too: one search finds every form of every value.
  return spelled.size === 0 ? undefined : spellingSet([...spelled.values(), ...fixed.values()]);
}

/**
 * Replaces the union of the spans; overlapping spans become one marker (the
 * earliest one's, the longest of those), and so do adjacent spans of one marker
 * (a value's pieces printed in a row, partial-values.ts). Between two spans of
 * the same place the cut tail's marker wins: a cut text that is exactly a value's
 * piece (partial-values.ts) must read as any other cut tail, or the marker would
 * say which characters a value starts with.
 */
export function replaceSpans(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start || b.end - a.end || Number(b.marker === CUT_TAIL_MARKER) - Number(a.marker === CUT_TAIL_MARKER));
  const parts: string[] = [];
  let written = 0;
  let current: Span | undefined;
  for (const span of spans) {
    if (current !== undefined && (span.start < current.end || (span.start === current.end && span.marker === current.marker))) {
      current.end = Math.max(current.end, span.end);
      continue;
    }
    if (current !== undefined) {
      parts.push(current.marker);
      written = current.end;
    }
    parts.push(text.slice(written, span.start));
    current = { ...span };
  }
  if (current !== undefined) {
    parts.push(current.marker);
    written = current.end;
  }
  parts.push(text.slice(written));
  return parts.join("");
}
