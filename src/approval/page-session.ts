/**
 * The browser session of an approval page. The URL's one-time secret only
 * bootstraps it: the request that consumes the secret gets a session cookie
 * (random, per page, `HttpOnly; SameSite=Strict; Path=/a/<id>`, held only in
 * this process's memory), and every later request of the page, its script,
 * style, hold and answer, must carry it. A process that reads the URL after
 * the browser opened it (from the browser's argv, its history) holds nothing
 * that answers.
 *
 * A session ends for good (`revoked`): when a second browser opens the used
 * link, when the page is removed (answered, timed out, withdrawn) and when the
 * server closes. A request resolves its session when its headers arrive, but
 * its body comes later; the page server re-checks `revoked` after every await,
 * so a request held open across a revocation acts on nothing.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { secretsEqual } from "./request-guard.js";

/** The cookie's name. */
export const SESSION_COOKIE = "torii_session";

export interface PageSession {
  readonly token: string;
  /** When the one-time link that started this session was consumed (server clock): its settle period starts here. */
  readonly openedAt: number;
  /** When this session's "hold started" request arrived (server clock), if a hold is under way. */
  holdStartedAt?: number | undefined;
  /** Set once the session has ended; never cleared. */
  revoked: boolean;
}

/** A new session for one browser, opened at `openedAt` (server clock, ms). */
export function newSession(openedAt: number): PageSession {
  return { token: randomBytes(32).toString("base64url"), openedAt, revoked: false };
}

/** Ends every session in `sessions` for good, including the ones requests in flight already resolved, and forgets them. */
export function revokeSessions(sessions: PageSession[]): void {
  for (const session of sessions) {
    session.revoked = true;
    session.holdStartedAt = undefined;
  }
  sessions.length = 0;
}

/** The Set-Cookie header value for `session` on the page of approval `id`. */
export function sessionCookie(session: PageSession, id: string): string {
  return `${SESSION_COOKIE}=${session.token}; Path=/a/${id}; HttpOnly; SameSite=Strict`;
}

/** The live session among `sessions` whose token the request's Cookie header carries (compared in constant time), if any. */
export function sessionOf(request: IncomingMessage, sessions: readonly PageSession[]): PageSession | undefined {
  const header = request.headers.cookie ?? "";
  const given = header
    .split(";")
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${SESSION_COOKIE}=`))
    .map((pair) => pair.slice(SESSION_COOKIE.length + 1));
  return sessions.find((session) => !session.revoked && given.some((token) => secretsEqual(token, session.token)));
}
