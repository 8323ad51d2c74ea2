/**
 * The local approval page: one HTTP server per MCP server, bound to 127.0.0.1
 * on an ephemeral port, started on the first approval. Each pending approval
 * lives at `/a/<id>/<secret>` (page), `…/page.js`, `…/page.css` and
 * `…/answer` (POST). Every request must name a registered id with its secret
 * and carry `Host: 127.0.0.1:<port>` or `localhost:<port>`; an answer must
 * also come from the same origin with the page's CSRF token, as JSON. An
 * allowing answer that arrives sooner than the hold after the page was served
 * is refused. Refusals say little (404 for a wrong id or secret alike).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HOLD_MS, PAGE_CSS, PAGE_JS } from "./page-assets.js";
import { needsHold, pageAnswerSchema, type PageAnswer } from "./page-model.js";
import { hostAllowed, sameOrigin, secretsEqual, SECURITY_HEADERS } from "./request-guard.js";

/** The largest answer body read, in bytes. */
const MAX_BODY_BYTES = 4096;

export interface PageRegistration {
  readonly id: string;
  readonly secret: string;
  readonly csrf: string;
  /** The page's HTML for its base path (`/a/<id>/<secret>`). */
  readonly render: (base: string) => string;
  /** Applies a validated answer; returns the HTTP status and the message the page shows. */
  readonly answer: (answer: PageAnswer) => Promise<{ readonly status: number; readonly message: string }>;
}

interface Entry {
  readonly registration: PageRegistration;
  servedAt?: number;
}

const ROUTE = /^\/a\/([0-9a-f]{16})\/([A-Za-z0-9_-]{16,128})(\/page\.js|\/page\.css|\/answer)?$/;

export class ApprovalPageServer {
  private server: Server | undefined;
  private port: Promise<number> | undefined;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Registers an approval's page and returns its URL (starting the server if needed). */
  async add(registration: PageRegistration): Promise<string> {
    const port = await this.listen();
    this.entries.set(registration.id, { registration });
    return `http://127.0.0.1:${port}/a/${registration.id}/${registration.secret}`;
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
    if (match === null || entry === undefined || !secretsEqual(match[2] ?? "", entry.registration.secret)) return text(404, "no such approval");
    const [, id, secret, asset] = match as unknown as [string, string, string, string | undefined];
    if (asset === "/answer") return request.method === "POST" ? this.answer(request, entry, host ?? "") : text(405, "POST only");
    if (request.method !== "GET") return text(405, "GET only");
    if (asset === "/page.js") return { status: 200, type: "text/javascript; charset=utf-8", body: PAGE_JS };
    if (asset === "/page.css") return { status: 200, type: "text/css; charset=utf-8", body: PAGE_CSS };
    entry.servedAt ??= this.now();
    return { status: 200, type: "text/html; charset=utf-8", body: entry.registration.render(`/a/${id}/${secret}`) };
  }

  private async answer(request: IncomingMessage, entry: Entry, host: string): Promise<Reply> {
    if (!sameOrigin(request.headers.origin, host)) return json(403, "refused: the answer must come from the approval page itself");
    if (request.headers["content-type"]?.split(";")[0]?.trim() !== "application/json") return json(415, "refused: JSON only");
    const body = await readBody(request);
    let parsed: PageAnswer;
    try {
      const result = pageAnswerSchema.safeParse(JSON.parse(body ?? ""));
      if (!result.success) return json(400, "refused: not a valid answer");
      parsed = result.data;
    } catch {
      return json(400, "refused: not a valid answer");
    }
    if (!secretsEqual(parsed.csrf, entry.registration.csrf)) return json(403, "refused: the page token does not match");
    if (needsHold(parsed.choice) && (entry.servedAt === undefined || this.now() - entry.servedAt < HOLD_MS)) {
      return json(403, "refused: an allowing answer needs the press-and-hold on the page");
    }
    const outcome = await entry.registration.answer(parsed);
    return json(outcome.status, outcome.message);
  }
}

interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
}

function text(status: number, body: string): Reply {
  return { status, type: "text/plain; charset=utf-8", body };
}

function json(status: number, message: string): Reply {
  return { status, type: "application/json; charset=utf-8", body: JSON.stringify({ message }) };
}

function send(response: ServerResponse, { status, type, body }: Reply): void {
  if (response.headersSent) return;
  response.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  response.end(body);
}

/** The request body as text, or undefined when it is larger than MAX_BODY_BYTES. */
function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    request.on("error", reject);
  });
}
