/**
 * Whether the AWS CLI would send a request through a proxy, by the rules it
 * really follows, not by a generic reading of the proxy variables. botocore
 * (AWS CLI v1 and v2 alike) computes a client's proxies once, from its
 * endpoint URL: `get_environ_proxies(url)` in botocore/utils.py gives no proxy
 * when `urllib.request.proxy_bypass(urlparse(url).netloc)` is true, else
 * `urllib.request.getproxies()`; a request then takes the entry of its URL's
 * scheme (`ProxyConfiguration.proxy_url_for` in botocore/httpsession.py).
 * On Linux, and on macOS whenever a proxy variable is set, those two are
 * `getproxies_environment` and `proxy_bypass_environment` of CPython's
 * Lib/urllib/request.py, whose behaviour is the same in 3.8 to 3.13 (3.10+ only
 * reorders the first loop):
 *
 * - Variables: every name whose last six characters, lower-cased, are `_proxy`;
 *   its key is the rest, lower-cased (`HTTPS_PROXY`, `https_proxy`,
 *   `Https_Proxy` are all `https`; `NO_PROXY` is `no`).
 * - First pass, every such variable: a non-empty value sets its key, an empty
 *   one does nothing.
 * - Second pass, only those whose name ends in a lowercase `_proxy`: a
 *   non-empty value sets its key again, an empty one *removes* it. A lowercase
 *   variable therefore wins over an uppercase one, an empty lowercase one
 *   cancels an uppercase one, and an empty uppercase one changes nothing.
 * - Within one pass, environment order decides between two variables of one
 *   key (`https_proxy` and `HTTPS_proxy`); that order is not known here, so
 *   every one of them is a possible outcome, and the stricter one is taken
 *   (a proxy if any outcome has one; an exemption only if every outcome has it).
 * - Under CGI (`REQUEST_METHOD` set) the first pass's `http` is dropped; not
 *   modelled: keeping the proxy is the stricter answer.
 * - No proxy applies when `no` is exactly `*` (no blanks, no other entry).
 *   Otherwise the netloc is lower-cased, `hostonly` is it without a trailing
 *   `:digits`, and each comma-separated entry, stripped of Python whitespace,
 *   if not empty, loses its leading dots and is lower-cased; the host is
 *   exempted when `hostonly` or the netloc equals the entry or ends with `.`
 *   and the entry. There are no wildcards (`*.example.com`, or `*` in a list,
 *   matches no host), no CIDR ranges, and an entry with a port exempts only a
 *   netloc with that very port (not a default-port host, which has none).
 *
 * botocore reads only the scheme's key; the `all` key (`ALL_PROXY`, which
 * requests and curl read) counts here too, as a stricter answer.
 */

/** A host not known here: only a no_proxy of exactly `*` (which exempts every host) exempts it. */
export const UNKNOWN_HOST: unique symbol = Symbol("unknown host");

/** Where a request goes, as botocore's proxy lookup sees it: the URL's scheme and its netloc (host, `:port` if written). */
export interface ProxyDestination {
  /** Lower-case; undefined when not known (every proxy key but `no` then counts). */
  readonly scheme: string | undefined;
  readonly netloc: string | typeof UNKNOWN_HOST;
}

/**
 * What Python's `str.strip()` removes: the characters for which `str.isspace()`
 * is true (not JavaScript's `trim` set, which has U+FEFF and lacks U+001C-U+001F and U+0085).
 */
const PYTHON_BLANKS: ReadonlySet<number> = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008,
  0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** `text.strip()` in Python (all these blanks are single UTF-16 units). */
function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PYTHON_BLANKS.has(text.charCodeAt(start))) start += 1;
  while (end > start && PYTHON_BLANKS.has(text.charCodeAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

/**
 * A URL whose netloc `urllib.parse.urlsplit` reads the same way in every
 * Python version: printable ASCII, a scheme, `//`, and a netloc of host-name,
 * IP-literal and port characters up to the first `/`, `?` or `#`. Anything
 * else (user info, percent-escapes, blanks, control characters) gives an
 * unknown host rather than a guess at Python's parse.
 */
const PLAIN_URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([A-Za-z0-9.:[\]-]+)(?:[/?#][\x21-\x7e]*)?$/u;

/** The destination of `url` (an endpoint as configured, or a default one), as `urlparse` gives it to botocore. */
export function destinationOf(url: string): ProxyDestination {
  const [, scheme, netloc] = PLAIN_URL.exec(url) ?? [];
  if (scheme === undefined || netloc === undefined) return { scheme: undefined, netloc: UNKNOWN_HOST };
  return { scheme: scheme.toLowerCase(), netloc };
}

/**
 * The possible values of each proxy key (`https`, `no`, …) of `env` after
 * `getproxies_environment`; `undefined` in a list: the key may be absent.
 * More than one value only when environment order would decide.
 */
export function environmentProxies(env: Readonly<Record<string, string>>): ReadonlyMap<string, readonly (string | undefined)[]> {
  const byKey = new Map<string, { any: string[]; lower: (string | undefined)[] }>();
  for (const [name, value] of Object.entries(env)) {
    if (name.length < 6 || name.slice(-6).toLowerCase() !== "_proxy") continue;
    const key = name.slice(0, -6).toLowerCase();
    const entry = byKey.get(key) ?? { any: [], lower: [] };
    byKey.set(key, entry);
    if (value !== "") entry.any.push(value);
    if (name.endsWith("_proxy")) entry.lower.push(value !== "" ? value : undefined);
  }
  const result = new Map<string, readonly (string | undefined)[]>();
  for (const [key, { any, lower }] of byKey) {
    // The second pass decides when it sees the key at all; else the first pass's values stand.
    const outcomes = lower.length > 0 ? lower : any.length > 0 ? any : [undefined];
    result.set(key, outcomes);
  }
  return result;
}

/** Python's `_splitport`: the netloc without a trailing `:digits` (a bare trailing `:` is dropped too). */
function hostOnly(netloc: string): string {
  return /^(.*):[0-9]*$/su.exec(netloc)?.[1] ?? netloc;
}

/** `proxy_bypass_environment` for a netloc and one no_proxy value (undefined: none set). */
export function bypassesProxy(netloc: string | typeof UNKNOWN_HOST, noProxy: string | undefined): boolean {
  if (noProxy === undefined) return false;
  if (noProxy === "*") return true;
  if (netloc === UNKNOWN_HOST) return false;
  const host = netloc.toLowerCase();
  const only = hostOnly(host);
  for (const raw of noProxy.split(",")) {
    const stripped = pythonStrip(raw);
    if (stripped === "") continue;
    const name = stripped.replace(/^\.+/u, "").toLowerCase();
    if (only === name || host === name || only.endsWith(`.${name}`) || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** The proxy the CLI would use for `destination` (a possible one, when environment order would decide), if any. */
export function proxyFor(env: Readonly<Record<string, string>>, destination: ProxyDestination): string | undefined {
  const proxies = environmentProxies(env);
  const exempt = (proxies.get("no") ?? [undefined]).every((noProxy) => bypassesProxy(destination.netloc, noProxy));
  if (exempt) return undefined;
  const keys = destination.scheme === undefined ? [...proxies.keys()].filter((key) => key !== "no") : [destination.scheme, "all"];
  for (const key of keys) {
    const proxy = proxies.get(key)?.find((value) => value !== undefined);
    if (proxy !== undefined) return proxy;
  }
  return undefined;
}
