/**
 * One approval page as the page server holds it, and its one-time link
 * `/a/<id>/<secret>`: the request that consumes the secret gets the page's
 * session cookie (page-session.ts) and a redirect to the page, whose URL
 * carries the session's load key; the browser
 * holding that session, opening the link again, is sent back to its page;
 * anyone else opening a used link is told the page was already opened in
 * another browser and gets nothing, and every session of the page ends (the
 * link leaked: only the terminal answers). That end is decided before any
 * await when the secret is known to be used, so no request of the ended
 * sessions still in flight outlives it (page-server.ts re-checks after its
 * own awaits).
 */
import type { IncomingMessage } from "node:http";
import { text, type Reply } from "./page-http.js";
import { FIRST_LOAD_HEADERS } from "./request-guard.js";
import type { PageAnswer, SessionFrame } from "./page-model.js";
import { newSession, pageLocation, revokeSessions, sessionCookie, sessionOf, type PageSession } from "./page-session.js";
import { pageSecretDigest } from "../state/page-secret.js";

export interface PageRegistration {
  readonly id: string;
  readonly csrf: string;
  /** The page's HTML for one session: its base path (`/a/<id>`), `settleMs` before its allowing buttons may wake, the session's page key. */
  readonly render: (session: SessionFrame) => string;
  /** Consumes a one-time secret (state/approval-store.ts `consumePageSecret`): true once per secret minted for this page. */
  readonly consume: (secret: string) => Promise<boolean>;
  /** Why the page did not offer `answer` (page-offer.ts `offerRefusal`), or undefined when it did. */
  readonly unoffered: (answer: PageAnswer) => string | undefined;
  /**
   * Applies a validated answer; returns the HTTP status and the message the page shows. `live` says whether
   * the answering session is still live: the write checks it under the pending file's lock.
   */
  readonly answer: (answer: PageAnswer, live: () => boolean) => Promise<{ readonly status: number; readonly message: string }>;
}

export interface PageEntry {
  readonly registration: PageRegistration;
  readonly sessions: PageSession[];
  /** Digests of the secrets this server consumed, to tell "already opened" from a wrong secret. */
  readonly consumed: Set<string>;
  /** Secrets being consumed now, by digest: a second request with the same secret waits for the first one's outcome. */
  readonly opening: Map<string, Promise<boolean>>;
}

/** A page with no session yet. */
export function newPageEntry(registration: PageRegistration): PageEntry {
  return { registration, sessions: [], consumed: new Set(), opening: new Map() };
}

/**
 * Answers a GET of the page's one-time link. `now` is the server's clock (the session's settle period starts
 * there); `live` says whether the page is still the one registered, asked after the secret's consumption.
 */
export async function openLink(entry: PageEntry, request: IncomingMessage, secret: string, now: () => number, live: () => boolean): Promise<OpenedLink> {
  const { id } = entry.registration;
  const digest = pageSecretDigest(secret);
  // A secret this server already consumed ends every session at once, before any await.
  if (entry.consumed.has(digest)) return { reply: openedAgain(entry, request), opened: false };
  const earlier = entry.opening.get(digest);
  if (earlier !== undefined) {
    // The same secret is being consumed by another request right now: whoever wins, this one is the second.
    const consumedByEarlier = await earlier.catch(() => false);
    return { reply: consumedByEarlier && live() ? openedAgain(entry, request) : text(404, "no such approval"), opened: false };
  }
  const consuming = entry.registration.consume(secret);
  entry.opening.set(digest, consuming);
  try {
    if (!(await consuming) || !live()) return { reply: text(404, "no such approval"), opened: false };
  } finally {
    entry.opening.delete(digest);
  }
  entry.consumed.add(digest);
  const session = newSession(now());
  entry.sessions.push(session);
  const reply: Reply = {
    status: 303,
    type: "text/plain; charset=utf-8",
    body: "",
    // The first response of the page's origin to reach this browser: it also removes what another page left there (page-server.ts).
    headers: { Location: pageLocation(session, id), "Set-Cookie": sessionCookie(session, id), ...FIRST_LOAD_HEADERS },
  };
  return { reply, opened: true };
}

/** What a GET of the link got, and whether it opened a session (the server trusts that connection: page-server.ts). */
export interface OpenedLink {
  readonly reply: Reply;
  readonly opened: boolean;
}

/**
 * A second GET of a used link: its own browser goes back to its page (which, loaded a second time, ends that
 * session: page-server.ts); anyone else ends every session.
 */
function openedAgain(entry: PageEntry, request: IncomingMessage): Reply {
  const { id } = entry.registration;
  const own = sessionOf(request, entry.sessions);
  if (own !== undefined) return { status: 303, type: "text/plain; charset=utf-8", body: "", headers: { Location: pageLocation(own, id) } };
  // Two browsers had the link: one of them read it from somewhere it leaked (the opener's argv). Which one
  // came first is unknowable here, so no page answers any more; the terminal still does.
  revokeSessions(entry.sessions);
  return text(
    410,
    `This approval page was already opened in another browser, so no page answers it any more. Answer from the terminal: torii approvals deny ${id} (or approve it, if the other browser was yours)`,
  );
}
