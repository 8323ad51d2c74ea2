/**
 * The checks every request to the approval page passes, as pure functions:
 * the Host header (DNS rebinding: a foreign name that resolves to 127.0.0.1
 * must not reach the page), requests another page made (`Sec-Fetch-Site`), the
 * Origin of a state-changing request (CSRF), and
 * constant-time comparison of secrets. The headers every response carries
 * forbid framing, caching, referrers, inline and external content.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether `host` names this server exactly: `<address>:<port>`, the loopback address it listens on
 * (page-address.ts), or `localhost:<port>` when that address is 127.0.0.1 (where `localhost` leads).
 */
export function hostAllowed(host: string | undefined, address: string, port: number): boolean {
  return host === `${address}:${port}` || (address === "127.0.0.1" && host === `localhost:${port}`);
}

/**
 * Whether a browser says the request was made by another page: `Sec-Fetch-Site` (set by the browser, never by a
 * page's script) is anything but `same-origin` (the page's own script, style and POSTs) or `none` (the link opened
 * from outside a page: the opener, the address bar, a terminal). A page on another port of 127.0.0.1 is the same
 * *site*, so the browser sends it the `SameSite=Strict` session cookie: its GET of the page would load the HTML
 * once more, which ends the operator's session. A request without the header (an older browser, a plain HTTP
 * client) goes on to the other checks.
 */
export function fromAnotherPage(fetchSite: string | undefined): boolean {
  return fetchSite !== undefined && fetchSite !== "same-origin" && fetchSite !== "none";
}

/** Whether a state-changing request comes from the page itself: its Origin is the (already checked) Host over http. */
export function sameOrigin(origin: string | undefined, host: string): boolean {
  return origin === `http://${host}`;
}

/** Compares two secrets in time independent of where they differ (digests first, so lengths may differ). */
export function secretsEqual(given: string, expected: string): boolean {
  const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The Content-Security-Policy of every response: own script, style and fetches only; no frames, forms, plugins or
 * base, and no worker of any kind (`worker-src` would otherwise fall back to `script-src 'self'`): the page never
 * registers a service worker, so nothing it runs can leave one on its origin.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'none'; worker-src 'none'; " +
  "manifest-src 'none'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Headers of the responses that start a session (the link's redirect, the page's one load): `Clear-Site-Data`
 * removes the origin's storage, service worker registrations included, so a worker another program's page left
 * on the origin (the 127.0.0.1 fallback: page-address.ts) is gone before the page, its key and its answers pass
 * through it. It cannot help the link's own request, which such a worker sees first (docs/approval.md).
 * Cookies are not cleared: the session's own is being set.
 */
export const FIRST_LOAD_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "Clear-Site-Data": '"storage"' });

/** Headers on every response, refusals included. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Frame-Options": "DENY",
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
});
