/**
 * What a fetched value looks like to each CLI, and the rejection Torii gives
 * for one. Pure predicates over one value; `fetched-values.ts` decides where
 * they apply.
 */
import type { ArgvRejection } from "./types.js";

/** One token of the agent's argv as the parser sorted it. */
export interface SitedToken {
  readonly token: string;
  readonly index: number;
}

/** `http://` or `https://` at the start, in any case, after blanks (AWS CLI v1 paramfile). */
export function startsWithUrl(value: string): boolean {
  const lower = value.trimStart().toLowerCase();
  return lower.startsWith("http://") || lower.startsWith("https://");
}

/**
 * Shorthand `Key@=value` asks the AWS CLI to load the value (v1 and v2 load only
 * file:// and fileb://, refused elsewhere); a URL there is never plain data.
 */
export function loadsUrlInShorthand(value: string): boolean {
  return /@=\s*https?:\/\//iu.test(value);
}

/**
 * Some comma-separated element is a `scheme://` URL once blanks, quotes and
 * urllib's `<URL:…>` wrapping are stripped: kubectl splits `-f` as CSV and
 * downloads http(s) elements; az opens `--template-uri` / `--parameters` URLs
 * with urllib (http, https, ftp, file), which unwraps `<URL:…>` first.
 */
export function hasUrlElement(value: string): boolean {
  return value.split(",").some((element) => /^[\s"'<]*(url:)?\s*[a-z][a-z0-9+.-]*:\/\//iu.test(element));
}

/**
 * A target kustomize 5.5 would clone instead of reading a local directory: a
 * `scheme://` URL, `user@host:` / `git@host/`, `github.com/…` (any case). Torii
 * also refuses `::` and `gh:` forms near them; local paths rarely hold `@` or `:`.
 */
export function isRemoteGitTarget(value: string): boolean {
  const lower = value.trim().toLowerCase();
  return lower.includes("://") || lower.includes("@") || lower.includes("::") || lower.startsWith("gh:") || /^(www\.)?github\.com([/:]|$)/u.test(lower);
}

/** `http://host:port/…`: enough to name the URL without echoing a path or query that may hold a token. */
function shortUrl(value: string): string {
  const match = /[a-z][a-z0-9+.-]*:\/\/[^/?#\s,"']*/iu.exec(value);
  if (match === null) return "a remote target";
  return match.index + match[0].length < value.trimEnd().length ? `${match[0]}/…` : match[0];
}

export const DOWNLOAD = "the CLI would download it and return the body";
export const CLONE = "kustomize would clone it";

/** A `forbidden-value` rejection naming the option and the URL's scheme and host only. */
export function fetchedValueRejection(site: SitedToken, value: string, option: string | undefined, what: string): ArgvRejection {
  const where = option === undefined ? `argument ${site.index}` : `the value of ${option} (argument ${site.index})`;
  const reason = `${where} is ${shortUrl(value)}: ${what}; Torii refuses values the CLI would fetch`;
  return option === undefined
    ? { kind: "forbidden-value", token: site.token, index: site.index, reason }
    : { kind: "forbidden-value", token: site.token, index: site.index, reason, option };
}
