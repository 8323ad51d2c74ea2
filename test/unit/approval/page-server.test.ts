/**
 * The approval page server over real HTTP with a real pending file and a
 * controlled clock: the one-time link opens one browser session, a second
 * GET gets nothing, nothing but the session answers, an allowing answer
 * is timed from the session's "hold started" request, not from the page, and
 * waits out the settle period after the link was opened. A request whose body
 * is held back acts on nothing once its session or page has ended, a held body
 * is cut off, and an answer may only choose what the page offered.
 */
import { mkdirSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import type { ConnectionCaps } from "../../../src/approval/page-connections.js";
import { SERVER_HOLD_MS } from "../../../src/approval/page-assets.js";
import type { PageAnswer } from "../../../src/approval/page-model.js";
import { callPageOffer, leasePageOffer, offerRefusal, type PageOffer } from "../../../src/approval/page-offer.js";
import { ApprovalPageServer } from "../../../src/approval/page-server.js";
import { DEFAULT_SETTINGS } from "../../../src/config/settings.js";
import { ApprovalStore } from "../../../src/state/approval-store.js";
import { newPageSecret, pageSecretDigest } from "../../../src/state/page-secret.js";
import { rawRequest } from "../../support/http-request.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const ID = "0123456789abcdef";
const CSRF = "csrf-token-of-this-page";
/** The production default settle period. */
const SETTLE_MS = DEFAULT_SETTINGS.approvalSettleSeconds * 1000;
let server: ApprovalPageServer | undefined;

afterEach(async () => {
  await server?.close();
});

/** What the test page offers for its call `deploy prod`: every prefix, both rules. */
const OFFER = callPageOffer({
  tokens: ["deploy", "prod"],
  defaultMinutes: 15,
  rules: [
    { effect: "accept", rule: "/^deploy prod$/", scope: "", file: "rules.yaml", alsoAffects: [] },
    { effect: "deny", rule: "deploy prod", scope: "", file: "rules.yaml", alsoAffects: [] },
  ],
});

/**
 * A server with one pending approval whose page opens with the returned one-time link; an answer is recorded
 * in the real pending file, as the approver does (a compare-and-swap that asks whether the session is live).
 */
async function servedApproval(
  options: { readonly offer?: PageOffer; readonly requestTimeoutMs?: number; readonly connectionCaps?: ConnectionCaps; readonly otherLinks?: number } = {},
) {
  const clock = { now: 1_000_000 };
  const store = new ApprovalStore(tempDirectory("torii-page-"));
  const answers: PageAnswer[] = [];
  const offer = options.offer ?? OFFER;
  server = new ApprovalPageServer({
    now: () => clock.now,
    settleMs: SETTLE_MS,
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.connectionCaps === undefined ? {} : { connectionCaps: options.connectionCaps }),
  });
  const page = await server.add({
    id: ID,
    csrf: CSRF,
    render: ({ base, settleMs, pageKey }) => `<p>page at ${base}, settling ${settleMs}, key ${pageKey}</p>`,
    consume: (secret) => store.consumePageSecret(ID, secret),
    unoffered: (answer) => offerRefusal(offer, answer),
    answer: async (answer, live) => {
      const change = await store.answer(ID, { choice: answer.choice, channel: "page", by: "the approval page" }, live);
      if (!change.ok) return { status: 409, message: change.detail };
      answers.push(answer);
      return { status: 200, message: "ok" };
    },
  });
  const secret = newPageSecret();
  /** Further unused links of the page (`torii approvals list --links` mints them). */
  const others = Array.from({ length: options.otherLinks ?? 0 }, () => newPageSecret());
  const now = Date.now();
  await store.create({
    id: ID,
    kind: "call",
    tool: "rec",
    argv: ["deploy", "prod"],
    page,
    page_secrets: [secret, ...others].map(pageSecretDigest),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 60_000).toISOString(),
  });
  const url = new URL(`${page}/${secret}`);
  const port = Number(url.port);
  const host = url.host;
  const address = url.hostname;
  const get = (target: string, cookie = "") => rawRequest({ address, port, path: target, headers: { host, cookie } });
  const post = (target: string, body: object, { cookie, key }: Client) =>
    rawRequest({
      address,
      port,
      path: target,
      method: "POST",
      headers: { host, origin: `http://${host}`, cookie, "content-type": "application/json", ...(key === undefined ? {} : { "x-torii-page-key": key }) },
      body: JSON.stringify(body),
    });
  /**
   * A POST whose headers are sent now and whose body is held back until `send` is called. It resolves once the
   * server has routed the request (its session resolved): it asks for `100 Continue`, which Node's server
   * writes just before it hands the request over.
   */
  const heldPost = async (target: string, body: object, { cookie, key }: Client) => {
    const socket: Socket = connect(port, address);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("error", () => undefined); // a connection the server cuts shows in `closed`
    const text = JSON.stringify(body);
    const routed = new Promise<void>((resolve) => socket.on("data", () => received.startsWith("HTTP/1.1 100") && resolve()));
    socket.write(
      `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nOrigin: http://${host}\r\nCookie: ${cookie}\r\nX-Torii-Page-Key: ${key ?? ""}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    await routed;
    return {
      /** Sends the held body and returns the final status line and body (what came after `100 Continue`). */
      send: async (): Promise<{ status: number; body: string }> => {
        socket.write(text);
        await closed; // Connection: close: the server ends the connection after its answer
        const final = received.slice(received.indexOf("\r\n\r\n") + 4);
        return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(final)?.[1] ?? 0), body: final.slice(final.indexOf("\r\n\r\n") + 4) };
      },
      /** Resolves when the server closes the connection; `received` is what it sent. */
      closed: closed.then(() => received),
    };
  };
  /**
   * A connection that has sent only a request line, as a slow client (or a flood) holds one; resolves once connected.
   * `finish` sends the rest of a request and returns the status line the server answered.
   */
  const partialRequest = async (target = "/nothing") => {
    const socket: Socket = connect(port, address);
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", () => undefined); // a connection the server cuts shows in `closed`
    const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(received)));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(`GET ${target} HTTP/1.1\r\n`);
    return {
      /** What the server sent before it closed the connection. */
      closed,
      finish: async (): Promise<string> => {
        socket.write(`Host: ${host}\r\nConnection: close\r\n\r\n`);
        return (await closed).split("\r\n")[0] ?? "";
      },
    };
  };
  /** A GET sent whole and left in flight: resolves once the server has routed it (it asks for `100 Continue`, as heldPost does). */
  const routedGet = async (target: string): Promise<void> => {
    const socket: Socket = connect(port, address);
    socket.on("error", () => undefined);
    socket.setEncoding("utf8");
    const routed = new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nExpect: 100-continue\r\n\r\n`);
    await routed;
  };
  /** A GET answered on a connection kept open after it (between requests, as a browser keeps one): its status line. */
  const keptAlive = async (target: string): Promise<string> => {
    const socket: Socket = connect(port, address);
    socket.on("error", () => undefined);
    socket.setEncoding("utf8");
    const answered = new Promise<string>((resolve) => socket.once("data", (chunk: string) => resolve(chunk.split("\r\n")[0] ?? "")));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    return answered;
  };
  const pending = () => {
    const record = store.read(ID);
    return record !== undefined && "version" in record ? record.status : undefined;
  };
  return {
    clock,
    store,
    answers,
    link: url.pathname,
    base: `/a/${ID}`,
    secret,
    address,
    port,
    host,
    get,
    post,
    heldPost,
    partialRequest,
    routedGet,
    keptAlive,
    pending,
    otherLinks: others.map((other) => `/a/${ID}/${other}`),
  };
}

/** What a browser holds of a session: its cookie and, once it loaded the page, the page key the HTML carried. */
interface Client {
  readonly cookie: string;
  readonly key?: string | undefined;
}

type Approval = Awaited<ReturnType<typeof servedApproval>>;

/** Opens the one-time link: the session cookie it set and the page's address its redirect names (with the session's load key). */
async function opened(approval: Approval): Promise<{ readonly cookie: string; readonly page: string }> {
  const response = await approval.get(approval.link);
  expect(response.status).toBe(303);
  const page = String(response.headers.location);
  expect(page).toMatch(new RegExp(`^${approval.base}\\?load=[A-Za-z0-9_-]{43}$`));
  return { cookie: String(response.headers["set-cookie"]).split(";")[0] ?? "", page };
}

/** Opens the link and loads the page once, as a browser does: the session's cookie, the page's address and the page key its HTML carried. */
async function loaded(approval: Approval): Promise<Client & { readonly page: string }> {
  const { cookie, page } = await opened(approval);
  const shown = await approval.get(page, cookie);
  expect(shown.status).toBe(200);
  return { cookie, page, key: keyIn(shown.body) };
}

/** The page key the test page's HTML carries. */
function keyIn(html: string): string {
  const key = /, key ([A-Za-z0-9_-]+)<\/p>$/.exec(html)?.[1];
  if (key === undefined) throw new Error("the page carries no key");
  return key;
}

describe("the one-time link", () => {
  test("the first GET consumes the secret (gone from the file) and sets the session cookie; a second GET is told the page was opened elsewhere", async () => {
    const approval = await servedApproval();
    const { cookie, page } = await opened(approval);
    expect(cookie).toMatch(/^torii_session=[A-Za-z0-9_-]{43}$/);
    const record = approval.store.read(ID);
    expect(record !== undefined && "version" in record ? record.page_secrets : undefined).toEqual([]);
    // The browser holding the session, opening the link again, just goes back to its page.
    expect((await approval.get(approval.link, cookie)).headers.location).toBe(page);
    expect((await approval.get(page, cookie)).body).toMatch(new RegExp(`^<p>page at ${approval.base}, settling ${SETTLE_MS}, key `));
    const second = await approval.get(approval.link);
    expect(second.status).toBe(410);
    expect(second.body).toMatch(/already opened in another browser.*torii approvals deny 0123456789abcdef/);
    expect(second.headers["set-cookie"]).toBeUndefined();
  });

  test("a used link opened by a second browser ends every session: the first one, maybe the reader of a leaked link, can no longer answer", async () => {
    const approval = await servedApproval();
    const client = await loaded(approval);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    expect((await approval.get(approval.link)).status).toBe(410);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await approval.post(`${approval.base}/answer`, { choice: "once", csrf: CSRF }, client)).status).toBe(403);
    expect((await approval.get(client.page, client.cookie)).status).toBe(403);
    expect(approval.answers).toEqual([]);
  });

  test("a Cookie header stuffed with session cookies is read only up to its first 16 (a browser sends a handful), so each request's work stays bounded", async () => {
    // Each session cookie is hashed against every live session: eight hundred in one request's 16 KiB of headers
    // held the MCP server's event loop for 100 ms.
    const approval = await servedApproval();
    const { cookie } = await opened(approval);
    const stuffed = (count: number) => [...Array<string>(count).fill("torii_session=x"), cookie].join("; ");
    expect((await approval.get(`${approval.base}/page.js`, stuffed(15))).status).toBe(200);
    expect((await approval.get(`${approval.base}/page.js`, stuffed(16))).status).toBe(403);
    expect((await approval.get(`${approval.base}/page.js`, stuffed(800))).status).toBe(403);
  });

  test("without the session cookie the page, its script, its hold and its answer are refused", async () => {
    const approval = await servedApproval();
    await opened(approval);
    for (const target of [approval.base, `${approval.base}/page.js`, `${approval.base}/page.css`]) expect((await approval.get(target)).status).toBe(403);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, { cookie: "" })).status).toBe(403);
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, { cookie: "torii_session=guessed" })).status).toBe(403);
    expect(approval.answers).toEqual([]);
  });

  test("a wrong link's secret is refused without waiting for the pending file's lock, which the right one then takes", async () => {
    // Any local process can send wrong links by the thousand; each waiting for the lock (up to its timeout, even
    // after the connection cap closed its connection) would hold up the operator's own open and answer.
    const approval = await servedApproval();
    const lock = `${approval.store.fileOf(ID)}.lock`;
    mkdirSync(lock);
    try {
      expect((await approval.get(`${approval.base}/${newPageSecret()}`)).status).toBe(404);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
    await opened(approval);
  });

  test("what the pending file holds (the page address, the secret's digest) opens nothing", async () => {
    const approval = await servedApproval();
    expect((await approval.get(`${approval.base}/${pageSecretDigest(approval.secret)}`)).status).toBe(404);
    expect((await approval.get(approval.base)).status).toBe(403);
    expect((await approval.get(approval.link)).status).toBe(303); // the link itself was not used up
  });
});

describe("the page key: the session cookie alone shows and answers nothing (red team F1)", () => {
  test("a hold or an answer with the cookie but without the session's page key, or with a wrong one, is refused and records nothing", async () => {
    const approval = await servedApproval();
    const client = await loaded(approval);
    approval.clock.now += SETTLE_MS;
    const stolen = { cookie: client.cookie };
    const forged = { cookie: client.cookie, key: `${client.key ?? ""}x` };
    for (const thief of [stolen, forged, { cookie: client.cookie, key: "" }]) {
      const hold = await approval.post(`${approval.base}/hold`, { csrf: CSRF }, thief);
      expect(hold.status).toBe(403);
      expect(JSON.parse(hold.body)).toEqual({ message: expect.stringMatching(/does not carry this page's key/) as unknown });
      expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, thief)).status).toBe(403);
    }
    expect(approval.answers).toEqual([]);
    expect(approval.pending()).toBe("pending");
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, client)).status).toBe(200);
  });

  test("the key is in no cookie, header or URL the link's request gets, and one session's key does not answer for another", async () => {
    const approval = await servedApproval();
    const opening = await approval.get(approval.link);
    const cookie = String(opening.headers["set-cookie"]).split(";")[0] ?? "";
    const key = keyIn((await approval.get(String(opening.headers.location), cookie)).body);
    expect(JSON.stringify(opening.headers)).not.toContain(key);
    // A second session, opened through a fresh link (what `torii approvals list` mints), has a key of its own.
    const minted = await approval.store.mintPageSecret(ID);
    if (!minted.ok) throw new Error(minted.detail);
    const other = await approval.get(new URL(minted.url).pathname);
    const otherCookie = String(other.headers["set-cookie"]).split(";")[0] ?? "";
    const otherKey = keyIn((await approval.get(String(other.headers.location), otherCookie)).body);
    expect(otherKey).not.toBe(key);
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, { cookie: otherCookie, key })).status).toBe(403);
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, { cookie, key: otherKey })).status).toBe(403);
    expect(approval.answers).toEqual([]);
  });

  test("the page's HTML is served once per session: a second load gets a 409 notice without the key and ends the session", async () => {
    const approval = await servedApproval();
    const client = await loaded(approval);
    const reload = await approval.get(client.page, client.cookie);
    expect(reload.status).toBe(409);
    expect(reload.body).toMatch(/already loaded in this browser session.*torii approvals list.*torii approvals deny 0123456789abcdef/);
    expect(reload.body).not.toContain(client.key);
    // Whoever loaded it first, the session that had the key answers nothing now.
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, client)).status).toBe(403);
    expect((await approval.get(client.page, client.cookie)).status).toBe(403);
    expect(approval.answers).toEqual([]);
    expect(approval.pending()).toBe("pending");
  });
});

describe("the hold is timed from the session's hold request", () => {
  test("an allowing answer long after the page was served but without a hold request, or sooner than SERVER_HOLD_MS after it, is refused; after it, accepted", async () => {
    const approval = await servedApproval();
    const client = await loaded(approval);
    const answer = () => approval.post(`${approval.base}/answer`, { choice: "once", csrf: CSRF }, client);
    approval.clock.now += 60_000;
    expect((await answer()).status).toBe(403);
    expect((await approval.post(`${approval.base}/hold`, { csrf: "forged" }, client)).status).toBe(403);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS - 1;
    expect((await answer()).status).toBe(403);
    // A refused answer uses the hold up: the next one needs a new hold.
    approval.clock.now += 10_000;
    expect((await answer()).status).toBe(403);
    expect(approval.answers).toEqual([]);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await answer()).status).toBe(200);
    expect(approval.answers).toEqual([{ choice: "once", csrf: CSRF }]);
  });

  test("Deny needs no hold and does not wait for the settle period, but still needs the session", async () => {
    const approval = await servedApproval();
    const client = await loaded(approval);
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, client)).status).toBe(200);
    expect(approval.answers).toEqual([{ choice: "deny", csrf: CSRF }]);
  });
});

describe("the settle period after the link is opened", () => {
  test("an allowing answer is refused until the settle period after the link was opened is over, however long the hold; the page is told what is left", async () => {
    expect(SETTLE_MS).toBeGreaterThan(SERVER_HOLD_MS);
    const approval = await servedApproval();
    const { cookie, page: address } = await opened(approval);
    approval.clock.now += 1_000;
    const page = await approval.get(address, cookie);
    expect(page.body).toMatch(new RegExp(`^<p>page at ${approval.base}, settling ${SETTLE_MS - 1_000}, key `));
    const client = { cookie, key: keyIn(page.body) };
    const answer = (choice: "once" | "deny") => approval.post(`${approval.base}/answer`, { choice, csrf: CSRF }, client);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    approval.clock.now += SETTLE_MS - 1_000 - 1;
    const early = await answer("once");
    expect(early.status).toBe(425);
    expect(JSON.parse(early.body)).toEqual({ message: expect.stringMatching(/wait 5 s after the link is opened.*try again in 1 s/) as unknown });
    expect(approval.answers).toEqual([]);
    approval.clock.now += 1;
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await answer("once")).status).toBe(200);
    expect(approval.answers).toEqual([{ choice: "once", csrf: CSRF }]);
  });

  test("a reader of a leaked link who opens it first cannot allow before the operator's browser, opening it within the settle period, ends its session", async () => {
    const approval = await servedApproval();
    const reader = await loaded(approval);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, reader)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    // What won before the settle period: a 0.9 s hold, before a slow browser started.
    expect((await approval.post(`${approval.base}/answer`, { choice: "rule-accept", csrf: CSRF }, reader)).status).toBe(425);
    approval.clock.now += SETTLE_MS - SERVER_HOLD_MS - 100;
    expect((await approval.get(approval.link)).status).toBe(410); // the operator's browser, late
    approval.clock.now += 100;
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, reader)).status).toBe(403);
    expect((await approval.post(`${approval.base}/answer`, { choice: "rule-accept", csrf: CSRF }, reader)).status).toBe(403);
    expect(approval.answers).toEqual([]);
  });
});

describe("a request in flight when its session or page ends (red team 11b F1)", () => {
  test("an answer whose body is held back across the operator's second open, and sent after the settle period, allows nothing", async () => {
    const approval = await servedApproval({ requestTimeoutMs: 60_000 });
    const reader = await loaded(approval);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, reader)).status).toBe(200);
    const answer = await approval.heldPost(`${approval.base}/answer`, { choice: "once", csrf: CSRF }, reader);
    expect((await approval.get(approval.link)).status).toBe(410); // the operator's browser
    approval.clock.now += SETTLE_MS + SERVER_HOLD_MS;
    const reply = await answer.send();
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toEqual({ message: expect.stringMatching(/no longer answers/) as unknown });
    expect(approval.answers).toEqual([]);
    expect(approval.pending()).toBe("pending");
  });

  test("a hold whose body is held back across the second open starts no hold", async () => {
    const approval = await servedApproval({ requestTimeoutMs: 60_000 });
    const reader = await loaded(approval);
    const hold = await approval.heldPost(`${approval.base}/hold`, { csrf: CSRF }, reader);
    expect((await approval.get(approval.link)).status).toBe(410);
    expect((await hold.send()).status).toBe(403);
  });

  test("an answer in flight when the approval ends (answered elsewhere, timed out, withdrawn) records nothing", async () => {
    const approval = await servedApproval({ requestTimeoutMs: 60_000 });
    const client = await loaded(approval);
    const answer = await approval.heldPost(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, client);
    server?.remove(ID);
    expect((await answer.send()).status).toBe(403);
    expect(approval.answers).toEqual([]);
    expect(approval.pending()).toBe("pending");
  });

  test("a body held back past the request deadline is cut off unanswered", async () => {
    const approval = await servedApproval({ requestTimeoutMs: 200 });
    const client = await loaded(approval);
    const answer = await approval.heldPost(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, client);
    const received = await answer.closed; // no body was sent: only the deadline closes it
    expect(received).not.toMatch(/HTTP\/1\.1 200/);
    expect(approval.answers).toEqual([]);
    expect(approval.pending()).toBe("pending");
  });
});

describe("requests the browser says another page made (Sec-Fetch-Site)", () => {
  // A page the agent serves on another port of 127.0.0.1 is the same site as the approval page, so the operator's
  // browser sends it the SameSite=Strict session cookie: its no-cors GET of the page loaded the HTML a second
  // time, which ended the operator's session (409), and its GET of a link consumed the secret.
  test("a same-site or cross-site GET of the page, carrying the session cookie, is refused and leaves the operator's session answering", async () => {
    const approval = await servedApproval();
    const client = await loaded(approval);
    for (const site of ["same-site", "cross-site", "same-origin, same-site"]) {
      const response = await rawRequest({
        address: approval.address,
        port: approval.port,
        path: client.page, // even with the load key (a page that read the redirect), a request another page made is refused
        headers: { host: approval.host, cookie: client.cookie, "sec-fetch-site": site, "sec-fetch-mode": "no-cors" },
      });
      expect(response.status, site).toBe(403);
      expect(response.body).not.toContain(client.key);
    }
    approval.clock.now += SETTLE_MS;
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await approval.post(`${approval.base}/answer`, { choice: "once", csrf: CSRF }, client)).status).toBe(200);
    expect(approval.answers.map((answer) => answer.choice)).toEqual(["once"]);
  });

  test("another page's GET of the link neither consumes its secret nor opens a session; the browser's own open (none) then does", async () => {
    const approval = await servedApproval();
    const refused = await rawRequest({
      address: approval.address,
      port: approval.port,
      path: approval.link,
      headers: { host: approval.host, "sec-fetch-site": "same-site" },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers["set-cookie"]).toBeUndefined();
    const record = approval.store.read(ID);
    expect(record !== undefined && "version" in record ? record.page_secrets : undefined).toEqual([pageSecretDigest(approval.secret)]);
    const opening = await rawRequest({
      address: approval.address,
      port: approval.port,
      path: approval.link,
      headers: { host: approval.host, "sec-fetch-site": "none" },
    });
    expect(opening.status).toBe(303);
    const cookie = String(opening.headers["set-cookie"]).split(";")[0] ?? "";
    const page = await rawRequest({
      address: approval.address,
      port: approval.port,
      path: String(opening.headers.location),
      headers: { host: approval.host, cookie, "sec-fetch-site": "none" },
    });
    expect(page.status).toBe(200);
    const script = await rawRequest({
      address: approval.address,
      port: approval.port,
      path: `${approval.base}/page.js`,
      headers: { host: approval.host, cookie, "sec-fetch-site": "same-origin" },
    });
    expect(script.status).toBe(200);
  });
});

describe("a flood of connections (slowloris) from a local process", () => {
  // The page server runs inside the MCP server: sockets held open until a deadline ends them, thousands at once,
  // used up its descriptors and memory. Connections are capped, and a flood closes only connections without a session.
  test("connections without a session over the cap are closed at once, oldest first and unanswered; the newest ones and the operator's request in flight go on", async () => {
    const approval = await servedApproval({ requestTimeoutMs: 60_000, connectionCaps: { anonymous: 3, session: 4 } });
    const client = await loaded(approval);
    const answer = await approval.heldPost(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, client);
    const flood = [];
    for (let index = 0; index < 6; index++) flood.push(await approval.partialRequest());
    // Closed as the fourth, fifth and sixth came in, not by the header deadline (which answers 408).
    expect(await Promise.all(flood.slice(0, 3).map((connection) => connection.closed))).toEqual(["", "", ""]);
    for (const connection of flood.slice(3)) expect(await connection.finish()).toBe("HTTP/1.1 404 Not Found");
    expect((await answer.send()).status).toBe(200);
    expect(approval.answers).toEqual([{ choice: "deny", csrf: CSRF }]);
  });

  test("a copied cookie alone does not move a connection into the session pool, so it cannot close the operator's there", async () => {
    const approval = await servedApproval({ requestTimeoutMs: 60_000, connectionCaps: { anonymous: 8, session: 1 } });
    const client = await loaded(approval);
    approval.clock.now += SETTLE_MS;
    // The operator's hold, routed (its page key proved), holds the session pool's one place.
    const hold = await approval.heldPost(`${approval.base}/hold`, { csrf: CSRF }, client);
    // Requests with the cookie but neither key, each on a connection of its own: the page's address without the
    // load key, a hold without the page key.
    const copied = async (request: string): Promise<string> => {
      const socket = connect(approval.port, approval.address);
      socket.on("error", () => undefined);
      socket.setEncoding("utf8");
      let received = "";
      socket.on("data", (chunk: string) => (received += chunk));
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.write(request);
      await closed;
      return received.split("\r\n")[0] ?? "";
    };
    const headers = `Host: ${approval.host}\r\nOrigin: http://${approval.host}\r\nCookie: ${client.cookie}\r\nConnection: close\r\n`;
    expect(await copied(`GET ${approval.base} HTTP/1.1\r\n${headers}\r\n`)).toBe("HTTP/1.1 403 Forbidden");
    const body = JSON.stringify({ csrf: CSRF });
    const hold2 = `POST ${approval.base}/hold HTTP/1.1\r\n${headers}Content-Type: application/json\r\nContent-Length: ${String(body.length)}\r\n\r\n${body}`;
    expect(await copied(hold2)).toBe("HTTP/1.1 403 Forbidden");
    expect((await hold.send()).status).toBe(200);
  });

  test("a flood far over the cap, still open, does not keep the operator's browser from opening, loading and answering the page", async () => {
    const approval = await servedApproval({ requestTimeoutMs: 60_000, connectionCaps: { anonymous: 4, session: 4 } });
    const flood = [];
    for (let index = 0; index < 40; index++) flood.push(await approval.partialRequest());
    // All but the newest four were closed, unanswered; the operator's connections, each newer, are let in.
    expect(await Promise.all(flood.slice(0, 36).map((connection) => connection.closed))).toEqual(Array<string>(36).fill(""));
    const client = await loaded(approval);
    approval.clock.now += SETTLE_MS;
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await approval.post(`${approval.base}/answer`, { choice: "once", csrf: CSRF }, client)).status).toBe(200);
    expect(approval.answers.map((answer) => answer.choice)).toEqual(["once"]);
  });
  test("a pool full of requests in flight (links being opened, waiting on the pending file's lock) does not close the operator's newer connection before its request is read", async () => {
    // A connection inside a request is closed after those between requests; a new one, still sending its first,
    // must not count as between requests. The test holds the pending file's lock, so the links it opens (leaked
    // ones: their secrets are checked under that lock) stay in flight until it lets go.
    const approval = await servedApproval({ requestTimeoutMs: 60_000, connectionCaps: { anonymous: 4, session: 4 }, otherLinks: 4 });
    const lock = `${approval.store.fileOf(ID)}.lock`;
    mkdirSync(lock);
    try {
      for (const link of approval.otherLinks) await approval.routedGet(link);
      // The operator's browser connects and is sending its request for the link when one more connection comes in.
      const operator = await approval.partialRequest(approval.link);
      const next = await approval.keptAlive("/nothing");
      expect(next).toBe("HTTP/1.1 404 Not Found");
      const status = operator.finish();
      rmSync(lock, { recursive: true });
      expect(await status).toBe("HTTP/1.1 303 See Other");
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  });
});

describe("state-changing requests from a browser that sends no Sec-Fetch-Site", () => {
  // An older browser sends the SameSite=Strict cookie with a request another page on the same site makes (an <img>
  // of the page's address) and says nothing of who made it: the load of the page needs the load key only the link's
  // redirect carries, and the hold and the answer the same Origin, the page key (a header) and the CSRF token (the body).
  test("a load of the page with the session cookie but without the load key changes nothing, before and after the operator's own load; a hold or an answer needs the page's Origin", async () => {
    const approval = await servedApproval();
    const { cookie, page } = await opened(approval);
    const early = await approval.get(approval.base, cookie);
    expect(early.status).toBe(403);
    expect(early.body).toMatch(/loaded only from its link.*nothing changed/);
    const shown = await approval.get(page, cookie); // the browser's own load, following the redirect
    expect(shown.status).toBe(200);
    const client = { cookie, key: keyIn(shown.body) };
    for (const path of [approval.base, `${approval.base}?load=guessed`, `${approval.base}?load=${client.key}`]) {
      const late = await approval.get(path, cookie);
      expect([path, late.status]).toEqual([path, 403]);
      expect(late.body).not.toContain(client.key);
    }
    // A hold or an answer needs the same Origin as well as the cookie, the page key and the token.
    for (const origin of [undefined, "null", `http://127.0.0.1:${approval.port}`, `http://${approval.host}.evil`]) {
      for (const part of ["hold", "answer"]) {
        const response = await rawRequest({
          address: approval.address,
          port: approval.port,
          path: `${approval.base}/${part}`,
          method: "POST",
          headers: {
            host: approval.host,
            ...(origin === undefined ? {} : { origin }),
            cookie: client.cookie,
            "x-torii-page-key": client.key,
            "content-type": "application/json",
          },
          body: JSON.stringify({ choice: "deny", csrf: CSRF }),
        });
        expect([origin, part, response.status]).toEqual([origin, part, 403]);
      }
    }
    expect(approval.answers).toEqual([]);
    // The session still answers: nothing another page sent ended it.
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, client)).status).toBe(200);
    expect(approval.answers.map((answer) => answer.choice)).toEqual(["deny"]);
  });
});

describe("what the page's responses tell the browser about workers", () => {
  // On the 127.0.0.1 fallback a service worker another program's page registered may sit on the page's origin.
  test("every response forbids workers and manifests and never allows a worker scope; the link's redirect and the page clear the origin's storage, workers included", async () => {
    const approval = await servedApproval();
    const opening = await approval.get(approval.link);
    const cookie = String(opening.headers["set-cookie"]).split(";")[0] ?? "";
    const page = await approval.get(String(opening.headers.location), cookie);
    const refused = await approval.get(approval.base);
    const script = await approval.get(`${approval.base}/page.js`, cookie);
    for (const response of [opening, page, refused, script]) {
      expect(response.headers["content-security-policy"]).toMatch(/(^|; )worker-src 'none'(;|$)/);
      expect(response.headers["content-security-policy"]).toMatch(/(^|; )manifest-src 'none'(;|$)/);
      expect(response.headers["service-worker-allowed"]).toBeUndefined();
    }
    expect([opening.status, opening.headers["clear-site-data"]]).toEqual([303, '"storage"']);
    expect([page.status, page.headers["clear-site-data"]]).toEqual([200, '"storage"']);
  });
});

describe("the page's origin", () => {
  const register = (page: ApprovalPageServer) =>
    page.add({
      id: ID,
      csrf: CSRF,
      render: () => "",
      consume: () => Promise.resolve(false),
      unoffered: () => undefined,
      answer: () => Promise.resolve({ status: 200, message: "" }),
    });

  // An origin is scheme, host and port: what another program's page left on 127.0.0.1:<port> (a service worker,
  // cookies) reaches the page once the kernel hands that port to the page server. A random loopback host is an
  // origin nobody served before.
  test("is a random address of 127.0.0.0/8, not 127.0.0.1, and another for another server; 127.0.0.1 at its port is not it", async () => {
    const first = new ApprovalPageServer();
    const second = new ApprovalPageServer();
    try {
      const [a, b] = (await Promise.all([register(first), register(second)])).map((url) => new URL(url));
      for (const url of [a, b]) {
        expect(url?.hostname).toMatch(/^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/u);
        expect(url?.hostname).not.toBe("127.0.0.1");
      }
      expect(a?.hostname).not.toBe(b?.hostname);
      const ok = await rawRequest({ address: a?.hostname ?? "", port: Number(a?.port), path: a?.pathname ?? "", headers: { host: a?.host ?? "" } });
      expect(ok.status).toBe(403); // the page is there (no session yet)
      // Nothing of the page's answers on 127.0.0.1, and the Host 127.0.0.1 (or localhost) does not name it.
      await expect(rawRequest({ port: Number(a?.port), path: a?.pathname ?? "", headers: { host: `127.0.0.1:${a?.port ?? ""}` } })).rejects.toThrow();
      for (const host of [`127.0.0.1:${a?.port ?? ""}`, `localhost:${a?.port ?? ""}`]) {
        expect((await rawRequest({ address: a?.hostname ?? "", port: Number(a?.port), path: a?.pathname ?? "", headers: { host } })).status).toBe(421);
      }
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  test("falls back to 127.0.0.1 where the random address is not this machine's (EADDRNOTAVAIL)", async () => {
    const told: string[] = [];
    const page = new ApprovalPageServer({ address: () => "192.0.2.1", onFallback: (address, reason) => told.push(`${address} ${reason}`) }); // TEST-NET-1: no interface has it
    try {
      const url = new URL(await register(page));
      expect(url.hostname).toBe("127.0.0.1");
      expect(told).toEqual(["192.0.2.1 EADDRNOTAVAIL"]);
      expect((await rawRequest({ port: Number(url.port), path: url.pathname, headers: { host: `localhost:${url.port}` } })).status).toBe(403);
    } finally {
      await page.close();
    }
  });
});

describe("an answer chooses only what the page offered", () => {
  test("a prefix shorter than the file-write hold, an exact grant of another length, an unoffered rule or a lease choice is refused before anything is recorded", async () => {
    const offer = callPageOffer({
      tokens: ["cp", "pod:/x", "/tmp/x", "y"],
      hold: { minimumPrefix: 3, access: "write" },
      defaultMinutes: 15,
      rules: [{ effect: "accept", rule: "/^x$/", scope: "", file: "rules.yaml", alsoAffects: [], disabledReason: "a deny wins" }],
    });
    expect(offer.prefixCounts).toEqual([3, 4]);
    const approval = await servedApproval({ offer });
    const client = await loaded(approval);
    approval.clock.now += SETTLE_MS;
    const refused = [
      { choice: "grant", mode: "prefix", token_count: 1, minutes: 1440 },
      { choice: "grant", mode: "prefix", token_count: 2, minutes: 5 },
      { choice: "grant", mode: "prefix", token_count: 5, minutes: 5 },
      { choice: "grant", mode: "exact", token_count: 3, minutes: 5 },
      { choice: "rule-accept" },
      { choice: "lease-add", minutes: 60 },
    ];
    for (const body of refused) {
      expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
      approval.clock.now += SERVER_HOLD_MS;
      const reply = await approval.post(`${approval.base}/answer`, { ...body, csrf: CSRF }, client);
      expect([reply.status, body]).toEqual([422, body]);
      expect(JSON.parse(reply.body)).toEqual({
        message: expect.stringMatching(/^refused: the page (did not offer|offered)|^refused: an exact grant/) as unknown,
      });
    }
    expect(approval.answers).toEqual([]);
    expect(approval.pending()).toBe("pending");
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, client)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    const offered = { choice: "grant", mode: "prefix", token_count: 3, minutes: 1440, csrf: CSRF } as const;
    expect((await approval.post(`${approval.base}/answer`, offered, client)).status).toBe(200);
    expect(approval.answers).toEqual([offered]);
  });

  test("a lease page takes Deny, Replace and Add, not a call's choices", () => {
    const lease = leasePageOffer(15);
    expect(offerRefusal(lease, { choice: "lease-add", minutes: 1440, csrf: CSRF })).toBeUndefined();
    expect(offerRefusal(lease, { choice: "once", csrf: CSRF })).toMatch(/did not offer the choice once/);
    expect(offerRefusal(lease, { choice: "grant", mode: "prefix", token_count: 1, minutes: 5, csrf: CSRF })).toMatch(/did not offer/);
  });
});
