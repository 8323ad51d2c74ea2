/**
 * The pieces of a long value that are masked on their own, so that a program
 * printing part of a secret (a truncated column, the first half of a key, a
 * PEM key cut short by its own logic) does not leak that part.
 *
 * The rule: a value of at least PARTIAL_FROM characters (once trimmed, and
 * without its own line breaks) is cut into aligned blocks of PARTIAL_BLOCK
 * characters (the last, shorter piece is not one), and every block that looks
 * random (below) is a pattern of its own, under the value's marker. So
 * printing any run of at least 2 × PARTIAL_BLOCK - 1 characters of the value
 * masks at least one whole block, and of a printed run only the less than
 * PARTIAL_BLOCK characters at each edge that do not fill a block stay in
 * clear: the last 4 characters of a key, or its first 8, are shown; 90 % of it
 * is masked but for those edges.
 *
 * Why aligned blocks and not "any run of N characters": a marker that answers
 * "is this text a piece of a value?" for any run is an oracle. An agent that
 * knows N - 1 characters of a value (a PEM header and DER prefix, a JWT header,
 * a URL's fixed part) makes the child print them followed by each candidate
 * next character and learns the value one character per guess set. With
 * aligned blocks the marker appears only for a whole block: past what it knows,
 * an agent must guess the next block whole (64^12 for base64), and what it can
 * learn beyond what it knows is at most the rest of the block it already
 * straddles.
 *
 * The blocks of a value that names a file that hold a path separator are left
 * out (FILE_PATH).
 *
 * Why only blocks that look random (some digit and at least two letters, or at
 * least two upper- and two lower-case letters; no blank, and no word set off by
 * punctuation): the fixed text of a structured value (`-----BEGIN PRIVATE KEY`,
 * `postgres://`, a kubeconfig's `apiVersion: v1`, an ARN's `us-east-1:`
 * region, `:role/` and account number, an endpoint's `.amazonaws.com`) is
 * ordinary output too, and masking it everywhere would wreck the output of
 * every call that prints such text.
 *
 * Pure: no I/O.
 */

/** Characters per block. */
export const PARTIAL_BLOCK = 12;
/** Shortest value whose blocks are masked on their own (two blocks at least). */
export const PARTIAL_FROM = 24;

/** The blocks of `form` (a value's used form) that are masked on their own. */
export function partialBlocks(form: string): string[] {
  const chars = Array.from(form);
  if (chars.length < PARTIAL_FROM) return [];
  const path = FILE_PATH.test(form);
  const blocks: string[] = [];
  for (let at = 0; at + PARTIAL_BLOCK <= chars.length; at += PARTIAL_BLOCK) {
    const block = chars.slice(at, at + PARTIAL_BLOCK).join("");
    if (looksRandom(block) && !(path && PATH_SEPARATOR.test(block))) blocks.push(block);
  }
  return blocks;
}

/**
 * A value that names a file (`KUBECONFIG=/tmp/run-0vvN1q/kubeconfig`) shares
 * its directories with every other path the program prints (PATH, a log of
 * the files it read): its blocks that span a separator are not masked on their
 * own (the whole value still is). Not the whole value's blocks: a random key
 * starts with `/` too (one base64 key in 64), and its other blocks must stay
 * masked.
 */
const FILE_PATH = /^(?:\/|~\/|\.\.?\/|[A-Za-z]:[\\/]|\\\\)/u;
const PATH_SEPARATOR = /[\\/]/u;

/**
 * A word of a structured value: four lower-case letters or more next to
 * punctuation (`-east-`, `:role/`, `.amazo`). In a random token, punctuation
 * is rare (base64's `+` and `/`) and a run of four lower-case letters beside
 * it rarer still.
 */
const WORD = /[-._:/@](?:\p{Ll}){4}|(?:\p{Ll}){4}[-._:/@]/u;

function looksRandom(block: string): boolean {
  if (/\s/u.test(block) || WORD.test(block)) return false;
  const digits = block.match(/\p{Nd}/gu)?.length ?? 0;
  const letters = block.match(/\p{L}/gu)?.length ?? 0;
  const upper = block.match(/\p{Lu}/gu)?.length ?? 0;
  const lower = block.match(/\p{Ll}/gu)?.length ?? 0;
  // Two letters at least with the digits: an account number with one letter (`3456789012:c`) is no token.
  return (digits >= 1 && letters >= 2) || (upper >= 2 && lower >= 2);
}
