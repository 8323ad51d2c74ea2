/**
 * How a CLI argument spells a local path, reduced to comparable segments
 * without touching the file system (policy/ stays pure: symbolic links are not
 * resolved, a residual the docs name).
 *
 * No shell runs, yet the CLIs expand some spellings themselves: `~` (az,
 * gcloud, the AWS CLI), environment variables in some file options, globs
 * (gcloud storage), and a relative path is opened from the child's working
 * directory. Windows and macOS file systems ignore case (with Unicode folding:
 * `ſ` is `S`), drop trailing dots and spaces, and answer to 8.3 short names
 * (`AZURE~1`). A spelled path is therefore a list of segment patterns, each
 * matched against a concrete segment by `segmentMatches`.
 */

/** A path as segments: the first is its root (`/`, or a drive such as `c:`), every one folded. */
export type Segments = readonly string[];

/** Folds case the way case-insensitive file systems compare names (`ſ`, the Kelvin sign). */
export function fold(text: string): string {
  return text.toUpperCase().toLowerCase();
}

const DRIVE = /^[a-z]:/u;
/** A drive root as written, or `*:` (any drive) in a store pattern. */
const DRIVE_ROOT = /^[a-z*]:/u;
/** `\\?\C:\…` and `\\.\C:\…`: the Windows device prefixes in front of an ordinary path. */
const DEVICE_PREFIX = /^[\\/]{2}[?.][\\/]/u;

/**
 * Splits a folded absolute or relative path into resolved segments, relative
 * ones against `cwd` (already segments). Duplicate separators, `.` and the
 * trailing dots and spaces Windows drops vanish; `..` removes the segment
 * before it but never the root.
 */
export function toSegments(spelled: string, cwd: Segments): string[] {
  const text = spelled.replace(DEVICE_PREFIX, "");
  let start: string[];
  let rest = text;
  if (DRIVE_ROOT.test(text)) {
    start = [text.slice(0, 2)];
    rest = text.slice(2);
  } else if (/^[\\/]/u.test(text)) {
    start = ["/"];
  } else {
    start = [...cwd];
  }
  const segments = start;
  for (const raw of rest.split(/[\\/]+/u)) {
    const segment = /^\.+$/u.test(raw) ? raw : raw.replace(/[. ]+$/u, "");
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length > 1) segments.pop();
    } else {
      segments.push(segment);
    }
  }
  return segments;
}

const GLOB = /[*?[]/u;
/** An 8.3 short name: up to six characters, `~`, a number, an optional extension. */
const SHORT_NAME = /^([^~]{1,6})~\d+(?:\.[^.]{0,3})?$/u;

/** Whether a written segment holds glob characters that a CLI expanding globs would match. */
export function isGlob(segment: string): boolean {
  return GLOB.test(segment);
}

/**
 * Whether the written segment `pattern` may name the concrete store segment
 * `name` (both folded): equal, a glob matching it, or an 8.3 short name whose
 * stem starts the name (dots and spaces are left out of short names). A
 * store's `*` segment stands for any name (another user's home).
 */
export function segmentMatches(pattern: string, name: string): boolean {
  if (name === "*" || pattern === name) return true;
  if (isGlob(pattern)) return globRegex(pattern).test(name);
  const short = SHORT_NAME.exec(pattern);
  if (short !== null) return name.replace(/[. ]/gu, "").startsWith(short[1] ?? "");
  // A drive root and `/` (the current drive on Windows) are the same place for a store on a drive.
  return (pattern === "/" && DRIVE.test(name)) || (name === "*:" && DRIVE.test(pattern));
}

const globCache = new Map<string, RegExp>();

/** A glob segment (`*`, `?`, `[abc]`, `[!abc]`) as an anchored regular expression; a `[` with no `]` is literal. */
function globRegex(pattern: string): RegExp {
  let cached = globCache.get(pattern);
  if (cached !== undefined) return cached;
  let source = "";
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i] as string;
    const close = char === "[" ? pattern.indexOf("]", i + 2) : -1;
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else if (close !== -1) {
      const body = pattern.slice(i + 1, close);
      source += `[${body.startsWith("!") || body.startsWith("^") ? `^${escapeClass(body.slice(1))}` : escapeClass(body)}]`;
      i = close;
    } else source += char.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
  }
  try {
    cached = new RegExp(`^${source}$`, "su");
  } catch {
    // An impossible class (`[z-a]`) matches nothing a CLI could expand: the segment is read literally.
    cached = new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&")}$`, "su");
  }
  if (globCache.size < 1024) globCache.set(pattern, cached);
  return cached;
}

function escapeClass(body: string): string {
  return body.replace(/[\\\]^[]/gu, "\\$&");
}
