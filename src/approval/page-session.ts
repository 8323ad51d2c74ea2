/**
 * The browser session of an approval page. The URL's one-time secret only
 * bootstraps it: the request that consumes the secret gets a session cookie
 * (random, per page, `HttpOnly; SameSite=Strict; Path=/a/<id>`, held only in
 * this process's memory), and every later request of the page, its script,
 * style, hold and answer, must carry it. A process that reads the URL after
 * the browser opened it (from the browser's argv, its history) holds nothing
 * that answers.
 *
 * The cookie alone is not enough either: it can be read from the browser's
 * profile or a proxy's log and replayed. Each session also has a page key,
 * random and held only in this process's memory, that the page's HTML carries
 * and nothing else does (no cookie, no URL, no log): every request that shows
 * or changes something, the hold and the answer, must carry it in the
 * `X-Torii-Page-Key` header (compared in constant time). The HTML is served
 * once per session; a second load ends the session (page-server.ts), so a
 * replayed cookie neither gets the key nor keeps a session that has one.
 *
 * Loading the page changes state too (the first load hands out the key, a
 * second one ends the session), and a browser sends the cookie with any
 * request another page on the same site makes (an `<img>` of the page's
 * address); `Sec-Fetch-Site` tells those apart only in browsers that send it.
 * So each session also has a load key, random and held only here, that only
 * the link's redirect carries (`/a/<id>?load=<key>`): a load without it is
 * refused and changes nothing, whatever the browser sends or leaves out.
 *
 * A session ends for good (`revoked`): when a second browser opens the used
 * link, when its page is loaded a second time, when the page is removed
 * (answered, timed out, withdrawn) and when the server closes. A request
 * resolves its session when its headers arrive, but its body comes later;
 * the page server re-checks `revoked` after every await, so a request held
 * open across a revocation acts on nothing.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { secretsEqual } from "./request-guard.js";

/** The cookie's name. */
export const SESSION_COOKIE = "torii_session";

/** The request header that carries the session's page key (lower case, as Node reports headers). */
export const PAGE_KEY_HEADER = "x-torii-page-key";

export interface PageSession {
  readonly token: string;
  /** The key only this session's HTML carries; the hold and the answer must send it back in PAGE_KEY_HEADER. */
  readonly pageKey: string;
  /** The key the link's redirect carries in the page's URL (`?load=`); a load of the page without it changes nothing. */
  readonly loadKey: string;
  /** Set once the page's HTML (and so its key) was served to this session; a second load ends the session. */
  pageServed: boolean;
  /** When the one-time link that started this session was consumed (server clock): its settle period starts here. */
  readonly openedAt: number;
  /** When this session's "hold started" request arrived (server clock), if a hold is under way. */
  holdStartedAt?: number | undefined;
  /** Set once the session has ended; never cleared. */
  revoked: boolean;
}

/** A new session for one browser, opened at `openedAt` (server clock, ms). */
export function newSession(openedAt: number): PageSession {
  const key = (): string => randomBytes(32).toString("base64url");
  return { token: key(), pageKey: key(), loadKey: key(), pageServed: false, openedAt, revoked: false };
}

/** Ends `session` for good and forgets it from `sessions`; the page's other sessions go on. */
export function revokeSession(sessions: PageSession[], session: PageSession): void {
  session.revoked = true;
  session.holdStartedAt = undefined;
  const index = sessions.indexOf(session);
  if (index >= 0) sessions.splice(index, 1);
}

/** Ends every session in `sessions` for good, including the ones requests in flight already resolved, and forgets them. */
export function revokeSessions(sessions: PageSession[]): void {
  for (const session of [...sessions]) revokeSession(sessions, session);
}

/** The Set-Cookie header value for `session` on the page of approval `id`. */
export function sessionCookie(session: PageSession, id: string): string {
  return `${SESSION_COOKIE}=${session.token}; Path=/a/${id}; HttpOnly; SameSite=Strict`;
}

/**
 * How many session cookies of one request are compared, at most. A browser sends one per matching path (`/`, `/a`,
 * `/a/<id>`, …: a handful, even with ones another page on the same site planted); each is hashed against every
 * live session, and a Cookie header stuffed with a thousand, against a page's eight sessions, held the MCP
 * server's event loop for over 100 ms a request.
 */
const MAX_SESSION_COOKIES = 16;

/**
 * The live session among `sessions` whose token the request's Cookie header carries (compared in constant time),
 * if any; only the first MAX_SESSION_COOKIES session cookies count.
 */
export function sessionOf(request: IncomingMessage, sessions: readonly PageSession[]): PageSession | undefined {
  const header = request.headers.cookie ?? "";
  const given = header
    .split(";")
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${SESSION_COOKIE}=`))
    .slice(0, MAX_SESSION_COOKIES)
    .map((pair) => pair.slice(SESSION_COOKIE.length + 1));
  return sessions.find((session) => !session.revoked && given.some((token) => secretsEqual(token, session.token)));
}

/** The page's address for `session`, with its load key: where the link's redirect sends its browser. */
export function pageLocation(session: PageSession, id: string): string {
  return `/a/${id}?load=${session.loadKey}`;
}

/** Whether `given` (the page URL's `load` parameter) is `session`'s load key (compared in constant time). */
export function carriesLoadKey(given: string | undefined, session: PageSession): boolean {
  return given !== undefined && secretsEqual(given, session.loadKey);
}

/** Whether the request carries `session`'s page key in PAGE_KEY_HEADER (exactly one such header, compared in constant time). */
export function carriesPageKey(request: IncomingMessage, session: PageSession): boolean {
  const given = request.headersDistinct[PAGE_KEY_HEADER];
  return given?.length === 1 && secretsEqual(given[0] ?? "", session.pageKey);
}
