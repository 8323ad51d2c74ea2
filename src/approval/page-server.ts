/**
 * The local approval page: one HTTP server per MCP server, bound to a random
 * loopback address (page-address.ts: an origin no other program served before,
 * so no service worker or cookie another local page left there reaches it; 127.0.0.1
 * where no other is there) on an ephemeral port, started on the first approval. Each pending approval
 * lives at `/a/<id>` (page), `…/page.js`, `…/page.css`, `…/hold` and
 * `…/answer` (POSTs). `/a/<id>/<secret>` opens it once: the request that
 * consumes the one-time secret gets the page's session cookie
 * (page-session.ts) and a redirect to the page whose URL carries the session's load key
 * (`?load=`, page-link.ts); a second one is told the page
 * was already opened in another browser and gets nothing, and every session of
 * the page ends (the link leaked: only the terminal answers). Every other request
 * needs the cookie. Loading the page also needs the load key: the browser
 * sends the cookie with another same-site page's request for the page's
 * address too, and such a load, which would take the page key's one serving
 * or end the session, then changes nothing whether or not the browser sent
 * `Sec-Fetch-Site`. The page's HTML is served once per session and carries
 * the session's page key; the hold and the answer must send that key back in
 * `X-Torii-Page-Key` (page-session.ts), so a replayed cookie shows and
 * answers nothing. A second load of the page gets a 409 notice without the
 * key, and ends that session: whether the operator reloaded or someone else
 * replayed the cookie is unknowable, and a fresh link from the terminal opens
 * a new session. Every request must carry `Host: <that address>:<port>` (or
 * `localhost:<port>` on 127.0.0.1), and none that the browser says another page made
 * (`Sec-Fetch-Site`: a page on another port of 127.0.0.1 is the same site and
 * gets the session cookie sent) is served; a POST must also come from the same
 * origin with the page's CSRF token, as JSON. An allowing answer is refused unless the same
 * session's "hold started" request came at least SERVER_HOLD_MS before it, and
 * until the session has settled: `settleMs` after the link was opened. The
 * settle period is what makes the second-open rule bite: a process that read
 * the link from the browser's arguments and opened it first cannot allow
 * anything before the operator's browser, starting within that period, opens
 * the link too and so ends every session. Refusals say little (404 for a
 * wrong id or secret alike).
 *
 * A request is routed when its headers arrive and its body is read after
 * that, so every handler re-checks after each await that its page is still
 * the one registered (identity, not id) and its session is still live: a
 * request held open across a second open, an answer or a timeout acts on
 * nothing. The answer's own write checks it again under the pending file's
 * lock. Headers and bodies also have a short deadline (`requestTimeoutMs`),
 * so a held request does not outlive the settle period. An answer may only
 * choose what its page offered (page-offer.ts, the page's own source).
 *
 * Connections are capped (page-connections.ts: a flood without the session
 * closes only its own oldest connections), and bounded in header size, idle
 * time between requests and silence: the server runs inside the MCP server,
 * whose descriptors and memory a local process must not use up. The link's
 * redirect and the page's one load carry `Clear-Site-Data: "storage"`, which
 * removes a service worker another program's page left on the origin (the
 * 127.0.0.1 fallback), and every response's CSP forbids workers
 * (request-guard.ts).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PAGE_CSS, PAGE_JS, SERVER_HOLD_MS } from "./page-assets.js";
import { holdStartSchema, needsHold, pageAnswerSchema } from "./page-model.js";
import { carriesLoadKey, carriesPageKey, revokeSession, revokeSessions, sessionOf, type PageSession } from "./page-session.js";
import { checkedPost, json, send, text, type Reply } from "./page-http.js";
import { newPageEntry, openLink, type PageEntry, type PageRegistration } from "./page-link.js";
import { FALLBACK_LOOPBACK, randomLoopback } from "./page-address.js";
import { FIRST_LOAD_HEADERS, fromAnotherPage, hostAllowed } from "./request-guard.js";
import { ConnectionGuard, type ConnectionCaps } from "./page-connections.js";
import { DEFAULT_SETTINGS } from "../config/settings.js";

/** Headers and body of one request must arrive within this, by default (ms). */
const REQUEST_TIMEOUT_MS = 3000;
/** The headers alone, at most (ms). */
const HEADERS_TIMEOUT_MS = 2000;
/** How often Node's server checks those deadlines (ms). */
const DEADLINE_CHECK_MS = 500;
/** How long a connection may wait between two requests (ms): the browser opens another for the hold and the answer. */
const KEEP_ALIVE_MS = 5000;
/** How long a connection may send and read nothing at all (ms), whatever it is doing: the last bound on a held socket. */
const IDLE_MS = 10_000;
/**
 * The request line and headers of one request, at most (bytes): Node's default, written down. On the 127.0.0.1
 * fallback the browser also sends the cookies every other local server on 127.0.0.1 set (cookies ignore the port).
 */
const MAX_HEADER_BYTES = 16 * 1024;
/** What a POST held across the end of its session or page is told. */
const ENDED = "refused: this page no longer answers (another browser opened its link, the page was loaded again, or the approval ended)";
/** What a request another page made (a link followed from a web page included) is told. */
const FROM_ANOTHER_PAGE =
  "refused: this request was made by another web page, and the approval page answers only itself and links opened from outside a page (the browser the server opened, the address bar, a terminal). Paste the link into the address bar, or answer from the terminal: torii approvals list (--links for a fresh link)";
/** What a load of the page without the load key its link's redirect carried is told (it changed nothing). */
const NOT_FROM_LINK =
  "refused: the approval page is loaded only from its link (this request did not come from the link's redirect), and nothing changed. Open the link again, or a fresh one: torii approvals list --links";
/** What a hold or an answer without the session's page key is told. */
const NO_PAGE_KEY = "refused: the request does not carry this page's key (only the page as first loaded answers)";

/** `/a/<id>` (the page, with the load key as its only parameter), its parts, or its one-time link. */
const ROUTE = /^\/a\/([0-9a-f]{16})(?:\/(page\.js|page\.css|hold|answer)|\/([A-Za-z0-9_-]{16,128})|\?load=([A-Za-z0-9_-]{1,128}))?$/;

export class ApprovalPageServer {
  private server: Server | undefined;
  /** The address and port listened on, once listening. */
  private bound: Promise<{ readonly address: string; readonly port: number }> | undefined;
  private readonly entries = new Map<string, PageEntry>();

  private readonly now: () => number;
  private readonly settleMs: number;
  private readonly requestTimeoutMs: number;
  private readonly address: () => string;
  private readonly onFallback: ((address: string, reason: string) => void) | undefined;
  private readonly listenPort: number;
  private readonly connections: ConnectionGuard;

  /**
   * `settleMs`: approval.settle_seconds in ms; `now`: the clock (tests control it); `requestTimeoutMs`: how long
   * one request's headers and body may take (tests that hold a body on purpose lengthen it); `address`: the
   * loopback address to try first (page-address.ts: a random one of 127.0.0.0/8, 127.0.0.1 where it is not there).
   */
  constructor(
    options: {
      readonly settleMs?: number;
      readonly now?: () => number;
      readonly requestTimeoutMs?: number;
      readonly address?: () => string;
      /** Told when the chosen address cannot be bound and the page falls back to 127.0.0.1 (the server's stderr). */
      readonly onFallback?: (address: string, reason: string) => void;
      /** The port to listen on; 0 (any free one) by default. Tests name one another server held before. */
      readonly port?: number;
      /** How many connections are held open without a session and with one (page-connections.ts); tests lower them. */
      readonly connectionCaps?: ConnectionCaps;
    } = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.settleMs = options.settleMs ?? DEFAULT_SETTINGS.approvalSettleSeconds * 1000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.address = options.address ?? randomLoopback;
    this.onFallback = options.onFallback;
    this.listenPort = options.port ?? 0;
    this.connections = new ConnectionGuard(options.connectionCaps);
  }

  /** Registers an approval's page and returns its URL without a secret, `http://127.a.b.c:<port>/a/<id>` (starting the server if needed). */
  async add(registration: PageRegistration): Promise<string> {
    const { address, port } = await this.listen();
    this.entries.set(registration.id, newPageEntry(registration));
    return `http://${address}:${port}/a/${registration.id}`;
  }

  /** Forgets an approval: its page and answers are refused from now on, requests already in flight included. */
  remove(id: string): void {
    const entry = this.entries.get(id);
    if (entry !== undefined) revokeSessions(entry.sessions);
    this.entries.delete(id);
  }

  /** Stops the server (shutdown). */
  async close(): Promise<void> {
    for (const id of [...this.entries.keys()]) this.remove(id);
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }

  private listen(): Promise<{ readonly address: string; readonly port: number }> {
    this.bound ??= this.listenFirst();
    return this.bound;
  }

  /** Listens on the chosen address; where the machine (EADDRNOTAVAIL: macOS) or a sandbox refuses it, on 127.0.0.1 as before. */
  private listenFirst(): Promise<{ readonly address: string; readonly port: number }> {
    const first = this.address();
    if (first === FALLBACK_LOOPBACK) return this.listenOn(first);
    return this.listenOn(first).catch((error: unknown) => {
      // Said, not silent: on 127.0.0.1 the page's origin is one other programs may have served (docs/approval.md).
      this.onFallback?.(first, error instanceof Error && "code" in error ? String(error.code) : String(error));
      return this.listenOn(FALLBACK_LOOPBACK);
    });
  }

  private listenOn(address: string): Promise<{ readonly address: string; readonly port: number }> {
    return new Promise((resolve, reject) => {
      // Every connection is bounded in number (page-connections.ts), size and time: a local process's flood of
      // sockets or slow requests must not use up the MCP server's descriptors or memory, nor keep the operator out.
      const limits = {
        requestTimeout: this.requestTimeoutMs,
        headersTimeout: Math.min(HEADERS_TIMEOUT_MS, this.requestTimeoutMs),
        connectionsCheckingInterval: Math.min(DEADLINE_CHECK_MS, this.requestTimeoutMs),
        maxHeaderSize: MAX_HEADER_BYTES,
      };
      const server = createServer(limits, (request, response) => {
        const socket = request.socket;
        this.connections.busy(socket, true);
        response.on("close", () => {
          this.connections.busy(socket, false);
        });
        this.route(request).then(
          (reply) => {
            send(response, reply);
          },
          () => {
            send(response, text(500, "internal error"));
          },
        );
      });
      server.keepAliveTimeout = KEEP_ALIVE_MS;
      // Every header within MAX_HEADER_BYTES is seen: past its count Node drops the rest silently, and a dropped
      // Sec-Fetch-Site must not pass for one the browser did not send.
      server.maxHeadersCount = 0;
      server.timeout = IDLE_MS;
      server.on("connection", (socket: Socket) => {
        this.connections.admit(socket);
      });
      server.on("error", (error) => {
        // A refused address leaves nothing to close; `close` then stops the fallback's server.
        if (this.server === server && !server.listening) this.server = undefined;
        reject(error);
      });
      server.listen({ host: address, port: this.listenPort }, () => {
        resolve({ address, port: (server.address() as AddressInfo).port });
      });
      server.unref();
      this.server = server;
    });
  }

  private async route(request: IncomingMessage): Promise<Reply> {
    const { address, port } = await this.listen();
    const host = request.headers.host;
    if (!hostAllowed(host, address, port)) return text(421, "wrong host");
    // Before anything else: such a request must not consume a link, load the page (ending its session) or answer.
    if (fromAnotherPage(request.headersDistinct["sec-fetch-site"]?.join(","))) return text(403, FROM_ANOTHER_PAGE);
    const match = ROUTE.exec(request.url ?? "");
    const entry = match === null ? undefined : this.entries.get(match[1] ?? "");
    if (match === null || entry === undefined) return text(404, "no such approval");
    const [, id, part, secret, load] = match as unknown as [string, string, string | undefined, string | undefined, string | undefined];
    if (secret !== undefined) {
      if (request.method !== "GET") return text(405, "GET only");
      const { reply, opened } = await openLink(entry, request, secret, this.now, () => this.live(entry));
      // The connection that opened a session is the operator's browser's, as far as the server can tell.
      if (opened) this.connections.trust(request.socket);
      return reply;
    }
    const session = sessionOf(request, entry.sessions);
    if (session === undefined) return text(403, "refused: this page answers only the browser that opened it");
    // A connection moves into the sessions' pool only once a request on it proved a key only the page has (the page
    // key, the load key): a copied cookie alone must not push the operator's connections out of that pool.
    if (part === "hold" || part === "answer") {
      if (request.method !== "POST") return text(405, "POST only");
      if (!carriesPageKey(request, session)) return json(403, NO_PAGE_KEY);
      this.connections.trust(request.socket);
      return part === "hold" ? this.hold(request, entry, session, host ?? "") : this.answer(request, entry, session, host ?? "");
    }
    if (request.method !== "GET") return text(405, "GET only");
    // The script and style sheet are the same for every page and show nothing of the approval: the cookie suffices.
    if (part === "page.js") return { status: 200, type: "text/javascript; charset=utf-8", body: PAGE_JS };
    if (part === "page.css") return { status: 200, type: "text/css; charset=utf-8", body: PAGE_CSS };
    if (carriesLoadKey(load, session)) this.connections.trust(request.socket);
    return this.page(entry, session, id, load);
  }

  /**
   * The page's HTML, with the session's page key, to the session's first load only; a second load ends the session.
   * Either one needs the load key of the link's redirect (`load`): another page's request for the page's address,
   * which the browser sends the session cookie with, changes nothing, whether or not the browser says who made it.
   */
  private page(entry: PageEntry, session: PageSession, id: string, load: string | undefined): Reply {
    if (!carriesLoadKey(load, session)) return text(403, NOT_FROM_LINK);
    if (session.pageServed) {
      revokeSession(entry.sessions, session);
      return text(
        409,
        `This approval page was already loaded in this browser session, and it is shown only once (a copied session cookie must not show or answer it), so this session has ended. Open a fresh link from the terminal (torii approvals list --links prints one), or answer there: torii approvals deny ${id}`,
      );
    }
    session.pageServed = true;
    return {
      status: 200,
      type: "text/html; charset=utf-8",
      body: entry.registration.render({ base: `/a/${id}`, settleMs: this.settleLeft(session), pageKey: session.pageKey }),
      headers: FIRST_LOAD_HEADERS,
    };
  }

  /** Whether `entry` is still the page registered under its id (not removed, not replaced) and `session`, if given, still live. */
  private live(entry: PageEntry, session?: PageSession): boolean {
    return this.entries.get(entry.registration.id) === entry && (session === undefined || !session.revoked);
  }

  /** How long `session` still settles before it may allow, in ms (0 once settled). */
  private settleLeft(session: PageSession): number {
    return Math.max(0, session.openedAt + this.settleMs - this.now());
  }

  /** The session's "hold started" request: the hold of an allowing answer is timed from here, by the server's clock. */
  private async hold(request: IncomingMessage, entry: PageEntry, session: PageSession, host: string): Promise<Reply> {
    const post = await checkedPost(request, entry.registration.csrf, host, this.requestTimeoutMs);
    if (!this.live(entry, session)) return json(403, ENDED);
    if (!post.ok) return post.refusal;
    if (!holdStartSchema.safeParse(post.body).success) return json(400, "refused: not a valid hold");
    session.holdStartedAt = this.now();
    return json(200, "holding");
  }

  private async answer(request: IncomingMessage, entry: PageEntry, session: PageSession, host: string): Promise<Reply> {
    const post = await checkedPost(request, entry.registration.csrf, host, this.requestTimeoutMs);
    if (!this.live(entry, session)) return json(403, ENDED);
    if (!post.ok) return post.refusal;
    const result = pageAnswerSchema.safeParse(post.body);
    if (!result.success) return json(400, "refused: not a valid answer");
    const started = session.holdStartedAt;
    session.holdStartedAt = undefined; // one hold, one answer
    const unoffered = entry.registration.unoffered(result.data);
    if (unoffered !== undefined) return json(422, `refused: ${unoffered}`);
    if (needsHold(result.data.choice)) {
      const settling = this.settleLeft(session);
      if (settling > 0) {
        return json(
          425,
          `refused: allowing answers wait ${Math.ceil(this.settleMs / 1000)} s after the link is opened, so that another browser opening the same link is noticed first; try again in ${Math.ceil(settling / 1000)} s`,
        );
      }
      if (started === undefined || this.now() - started < SERVER_HOLD_MS) return json(403, "refused: an allowing answer needs the press-and-hold on the page");
    }
    const outcome = await entry.registration.answer(result.data, () => this.live(entry, session));
    return json(outcome.status, outcome.message);
  }
}
