/**
 * The local approval page: one HTTP server per MCP server, bound to 127.0.0.1
 * on an ephemeral port, started on the first approval. Each pending approval
 * lives at `/a/<id>` (page), `…/page.js`, `…/page.css`, `…/hold` and
 * `…/answer` (POSTs). `/a/<id>/<secret>` opens it once: the request that
 * consumes the one-time secret gets the page's session cookie
 * (page-session.ts) and a redirect to the page; a second one is told the page
 * was already opened in another browser and gets nothing, and every session of
 * the page ends (the link leaked: only the terminal answers). Every other request
 * needs the cookie. Every request must carry `Host: 127.0.0.1:<port>` or
 * `localhost:<port>`; a POST must also come from the same origin with the
 * page's CSRF token, as JSON. An allowing answer is refused unless the same
 * session's "hold started" request came at least SERVER_HOLD_MS before it, and
 * until the session has settled: `settleMs` after the link was opened. The
 * settle period is what makes the second-open rule bite: a process that read
 * the link from the browser's arguments and opened it first cannot allow
 * anything before the operator's browser, starting within that period, opens
 * the link too and so ends every session. Refusals say little (404 for a
 * wrong id or secret alike).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PAGE_CSS, PAGE_JS, SERVER_HOLD_MS } from "./page-assets.js";
import { holdStartSchema, needsHold, pageAnswerSchema, type PageAnswer } from "./page-model.js";
import { newSession, sessionCookie, sessionOf, type PageSession } from "./page-session.js";
import { checkedPost, json, send, text, type Reply } from "./page-http.js";
import { hostAllowed } from "./request-guard.js";
import { pageSecretDigest } from "../state/page-secret.js";
import { DEFAULT_SETTINGS } from "../config/settings.js";

export interface PageRegistration {
  readonly id: string;
  readonly csrf: string;
  /** The page's HTML for its base path (`/a/<id>`), `settleMs` before its allowing buttons may wake. */
  readonly render: (base: string, settleMs: number) => string;
  /** Consumes a one-time secret (state/approval-store.ts `consumePageSecret`): true once per secret minted for this page. */
  readonly consume: (secret: string) => Promise<boolean>;
  /** Applies a validated answer; returns the HTTP status and the message the page shows. */
  readonly answer: (answer: PageAnswer) => Promise<{ readonly status: number; readonly message: string }>;
}

interface Entry {
  readonly registration: PageRegistration;
  readonly sessions: PageSession[];
  /** Digests of the secrets this server consumed, to tell "already opened" from a wrong secret. */
  readonly consumed: Set<string>;
}

const ROUTE = /^\/a\/([0-9a-f]{16})(?:\/(page\.js|page\.css|hold|answer)|\/([A-Za-z0-9_-]{16,128}))?$/;

export class ApprovalPageServer {
  private server: Server | undefined;
  private port: Promise<number> | undefined;
  private readonly entries = new Map<string, Entry>();

  private readonly now: () => number;
  private readonly settleMs: number;

  /** `settleMs`: approval.settle_seconds in ms; `now`: the clock (tests control it). */
  constructor(options: { readonly settleMs?: number; readonly now?: () => number } = {}) {
    this.now = options.now ?? (() => Date.now());
    this.settleMs = options.settleMs ?? DEFAULT_SETTINGS.approvalSettleSeconds * 1000;
  }

  /** Registers an approval's page and returns its URL without a secret, `http://127.0.0.1:<port>/a/<id>` (starting the server if needed). */
  async add(registration: PageRegistration): Promise<string> {
    const port = await this.listen();
    this.entries.set(registration.id, { registration, sessions: [], consumed: new Set() });
    return `http://127.0.0.1:${port}/a/${registration.id}`;
  }

  /** Forgets an approval: its page and answers are refused from now on. */
  remove(id: string): void {
    this.entries.delete(id);
  }

  /** Stops the server (shutdown). */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }

  private listen(): Promise<number> {
    this.port ??= new Promise<number>((resolve, reject) => {
      const server = createServer((request, response) => {
        this.route(request).then(
          (reply) => {
            send(response, reply);
          },
          () => {
            send(response, text(500, "internal error"));
          },
        );
      });
      server.on("error", reject);
      server.listen({ host: "127.0.0.1", port: 0 }, () => {
        resolve((server.address() as AddressInfo).port);
      });
      server.unref();
      this.server = server;
    });
    return this.port;
  }

  private async route(request: IncomingMessage): Promise<Reply> {
    const port = await this.listen();
    const host = request.headers.host;
    if (!hostAllowed(host, port)) return text(421, "wrong host");
    const match = ROUTE.exec(request.url ?? "");
    const entry = match === null ? undefined : this.entries.get(match[1] ?? "");
    if (match === null || entry === undefined) return text(404, "no such approval");
    const [, id, part, secret] = match as unknown as [string, string, string | undefined, string | undefined];
    if (secret !== undefined) return request.method === "GET" ? this.open(request, entry, id, secret) : text(405, "GET only");
    const session = sessionOf(request, entry.sessions);
    if (session === undefined) return text(403, "refused: this page answers only the browser that opened it");
    if (part === "hold" || part === "answer") {
      if (request.method !== "POST") return text(405, "POST only");
      return part === "hold" ? this.hold(request, entry, session, host ?? "") : this.answer(request, entry, session, host ?? "");
    }
    if (request.method !== "GET") return text(405, "GET only");
    if (part === "page.js") return { status: 200, type: "text/javascript; charset=utf-8", body: PAGE_JS };
    if (part === "page.css") return { status: 200, type: "text/css; charset=utf-8", body: PAGE_CSS };
    return { status: 200, type: "text/html; charset=utf-8", body: entry.registration.render(`/a/${id}`, this.settleLeft(session)) };
  }

  /** The one-time link: consumes the secret and starts a session, or says the page was opened elsewhere. */
  private async open(request: IncomingMessage, entry: Entry, id: string, secret: string): Promise<Reply> {
    const page = `/a/${id}`;
    if (await entry.registration.consume(secret)) {
      const session = newSession(this.now());
      entry.sessions.push(session);
      entry.consumed.add(pageSecretDigest(secret));
      return { status: 303, type: "text/plain; charset=utf-8", body: "", headers: { Location: page, "Set-Cookie": sessionCookie(session, id) } };
    }
    // The browser that consumed it, opening the link again, just goes back to its page.
    if (sessionOf(request, entry.sessions) !== undefined) return { status: 303, type: "text/plain; charset=utf-8", body: "", headers: { Location: page } };
    if (!entry.consumed.has(pageSecretDigest(secret))) return text(404, "no such approval");
    // Two browsers had the link: one of them read it from somewhere it leaked (the opener's argv). Which one
    // came first is unknowable here, so no page answers any more; the terminal still does.
    entry.sessions.length = 0;
    return text(
      410,
      `This approval page was already opened in another browser, so no page answers it any more. Answer from the terminal: torii approvals deny ${id} (or approve it, if the other browser was yours)`,
    );
  }

  /** How long `session` still settles before it may allow, in ms (0 once settled). */
  private settleLeft(session: PageSession): number {
    return Math.max(0, session.openedAt + this.settleMs - this.now());
  }

  /** The session's "hold started" request: the hold of an allowing answer is timed from here, by the server's clock. */
  private async hold(request: IncomingMessage, entry: Entry, session: PageSession, host: string): Promise<Reply> {
    const post = await checkedPost(request, entry.registration.csrf, host);
    if (!post.ok) return post.refusal;
    if (!holdStartSchema.safeParse(post.body).success) return json(400, "refused: not a valid hold");
    session.holdStartedAt = this.now();
    return json(200, "holding");
  }

  private async answer(request: IncomingMessage, entry: Entry, session: PageSession, host: string): Promise<Reply> {
    const post = await checkedPost(request, entry.registration.csrf, host);
    if (!post.ok) return post.refusal;
    const result = pageAnswerSchema.safeParse(post.body);
    if (!result.success) return json(400, "refused: not a valid answer");
    const started = session.holdStartedAt;
    session.holdStartedAt = undefined; // one hold, one answer
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
    const outcome = await entry.registration.answer(result.data);
    return json(outcome.status, outcome.message);
  }
}
