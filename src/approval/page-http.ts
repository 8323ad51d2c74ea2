/**
 * The approval page server's HTTP plumbing: replies with the security headers
 * every response carries, a body read bounded in size and in time, and the
 * checks every POST of the page passes (same Origin, JSON, the page's CSRF
 * token).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sameOrigin, secretsEqual, SECURITY_HEADERS } from "./request-guard.js";

/** The largest POST body read, in bytes. */
const MAX_BODY_BYTES = 4096;

/** A POST's parsed JSON body once Origin, Content-Type and the page's CSRF token are checked, or the refusal; the body must arrive within `deadlineMs`. */
export async function checkedPost(
  request: IncomingMessage,
  csrf: string,
  host: string,
  deadlineMs: number,
): Promise<{ readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly refusal: Reply }> {
  const refuse = (status: number, message: string) => ({ ok: false, refusal: json(status, message) }) as const;
  if (!sameOrigin(request.headers.origin, host)) return refuse(403, "refused: the answer must come from the approval page itself");
  if (request.headers["content-type"]?.split(";")[0]?.trim() !== "application/json") return refuse(415, "refused: JSON only");
  let body: unknown;
  try {
    body = JSON.parse((await readBody(request, deadlineMs)) ?? "");
  } catch {
    return refuse(400, "refused: not a valid answer");
  }
  const given = typeof body === "object" && body !== null && "csrf" in body ? body.csrf : undefined;
  if (typeof given !== "string" || !secretsEqual(given, csrf)) return refuse(403, "refused: the page token does not match");
  return { ok: true, body };
}

export interface Reply {
  readonly status: number;
  readonly type: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A plain-text reply. */
export function text(status: number, body: string): Reply {
  return { status, type: "text/plain; charset=utf-8", body };
}

/** A JSON reply `{message}`, what the page shows. */
export function json(status: number, message: string): Reply {
  return { status, type: "application/json; charset=utf-8", body: JSON.stringify({ message }) };
}

/** Writes `reply` with the security headers every response carries. */
export function send(response: ServerResponse, { status, type, body, headers }: Reply): void {
  if (response.headersSent) return;
  response.writeHead(status, { ...SECURITY_HEADERS, ...headers, "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  response.end(body);
}

/**
 * The request body as text, or undefined when it is larger than MAX_BODY_BYTES, has not arrived within
 * `deadlineMs`, or its connection closed first (the request is then destroyed).
 */
function readBody(request: IncomingMessage, deadlineMs: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (body: string | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      if (body === undefined) request.destroy();
      resolve(body);
    };
    // A body held back is an answer waiting for a better moment: it gets none.
    const deadline = setTimeout(() => {
      finish(undefined);
    }, deadlineMs);
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        finish(undefined);
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => {
      finish(Buffer.concat(chunks).toString("utf8"));
    });
    request.on("close", () => {
      finish(undefined);
    });
    request.on("error", (error) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      reject(error);
    });
  });
}
