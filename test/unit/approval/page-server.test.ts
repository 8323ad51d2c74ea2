/**
 * The approval page server over real HTTP with a real pending file and a
 * controlled clock: the one-time link opens one browser session, a second
 * GET gets nothing, nothing but the session answers, an allowing answer
 * is timed from the session's "hold started" request, not from the page, and
 * waits out the settle period after the link was opened.
 */
import { afterEach, describe, expect, test } from "vitest";
import { SERVER_HOLD_MS } from "../../../src/approval/page-assets.js";
import type { PageAnswer } from "../../../src/approval/page-model.js";
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

/** A server with one pending approval whose page opens with the returned one-time link. */
async function servedApproval() {
  const clock = { now: 1_000_000 };
  const store = new ApprovalStore(tempDirectory("torii-page-"));
  const answers: PageAnswer[] = [];
  server = new ApprovalPageServer({ now: () => clock.now, settleMs: SETTLE_MS });
  const page = await server.add({
    id: ID,
    csrf: CSRF,
    render: (base, settleMs) => `<p>page at ${base}, settling ${settleMs}</p>`,
    consume: (secret) => store.consumePageSecret(ID, secret),
    answer: (answer) => {
      answers.push(answer);
      return Promise.resolve({ status: 200, message: "ok" });
    },
  });
  const secret = newPageSecret();
  const now = Date.now();
  await store.create({
    id: ID,
    kind: "call",
    tool: "rec",
    argv: ["deploy", "prod"],
    page,
    page_secrets: [pageSecretDigest(secret)],
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 60_000).toISOString(),
  });
  const url = new URL(`${page}/${secret}`);
  const port = Number(url.port);
  const host = url.host;
  const get = (target: string, cookie = "") => rawRequest({ port, path: target, headers: { host, cookie } });
  const post = (target: string, body: object, cookie: string) =>
    rawRequest({
      port,
      path: target,
      method: "POST",
      headers: { host, origin: `http://${host}`, cookie, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { clock, store, answers, link: url.pathname, base: `/a/${ID}`, secret, get, post };
}

async function opened(approval: Awaited<ReturnType<typeof servedApproval>>): Promise<string> {
  const response = await approval.get(approval.link);
  expect(response.status).toBe(303);
  return String(response.headers["set-cookie"]).split(";")[0] ?? "";
}

describe("the one-time link", () => {
  test("the first GET consumes the secret (gone from the file) and sets the session cookie; a second GET is told the page was opened elsewhere", async () => {
    const approval = await servedApproval();
    const cookie = await opened(approval);
    expect(cookie).toMatch(/^torii_session=[A-Za-z0-9_-]{43}$/);
    const record = approval.store.read(ID);
    expect(record !== undefined && "version" in record ? record.page_secrets : undefined).toEqual([]);
    // The browser holding the session, opening the link again, just goes back to its page.
    expect((await approval.get(approval.link, cookie)).headers.location).toBe(approval.base);
    expect((await approval.get(approval.base, cookie)).body).toBe(`<p>page at ${approval.base}, settling ${SETTLE_MS}</p>`);
    const second = await approval.get(approval.link);
    expect(second.status).toBe(410);
    expect(second.body).toMatch(/already opened in another browser.*torii approvals deny 0123456789abcdef/);
    expect(second.headers["set-cookie"]).toBeUndefined();
  });

  test("a used link opened by a second browser ends every session: the first one, maybe the reader of a leaked link, can no longer answer", async () => {
    const approval = await servedApproval();
    const cookie = await opened(approval);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, cookie)).status).toBe(200);
    expect((await approval.get(approval.link)).status).toBe(410);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await approval.post(`${approval.base}/answer`, { choice: "once", csrf: CSRF }, cookie)).status).toBe(403);
    expect((await approval.get(approval.base, cookie)).status).toBe(403);
    expect(approval.answers).toEqual([]);
  });

  test("without the session cookie the page, its script, its hold and its answer are refused", async () => {
    const approval = await servedApproval();
    await opened(approval);
    for (const target of [approval.base, `${approval.base}/page.js`, `${approval.base}/page.css`]) expect((await approval.get(target)).status).toBe(403);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, "")).status).toBe(403);
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, "torii_session=guessed")).status).toBe(403);
    expect(approval.answers).toEqual([]);
  });

  test("what the pending file holds (the page address, the secret's digest) opens nothing", async () => {
    const approval = await servedApproval();
    expect((await approval.get(`${approval.base}/${pageSecretDigest(approval.secret)}`)).status).toBe(404);
    expect((await approval.get(approval.base)).status).toBe(403);
    expect((await approval.get(approval.link)).status).toBe(303); // the link itself was not used up
  });
});

describe("the hold is timed from the session's hold request", () => {
  test("an allowing answer long after the page was served but without a hold request, or sooner than SERVER_HOLD_MS after it, is refused; after it, accepted", async () => {
    const approval = await servedApproval();
    const cookie = await opened(approval);
    const answer = () => approval.post(`${approval.base}/answer`, { choice: "once", csrf: CSRF }, cookie);
    approval.clock.now += 60_000;
    expect((await answer()).status).toBe(403);
    expect((await approval.post(`${approval.base}/hold`, { csrf: "forged" }, cookie)).status).toBe(403);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, cookie)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS - 1;
    expect((await answer()).status).toBe(403);
    // A refused answer uses the hold up: the next one needs a new hold.
    approval.clock.now += 10_000;
    expect((await answer()).status).toBe(403);
    expect(approval.answers).toEqual([]);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, cookie)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await answer()).status).toBe(200);
    expect(approval.answers).toEqual([{ choice: "once", csrf: CSRF }]);
  });

  test("Deny needs no hold and does not wait for the settle period, but still needs the session", async () => {
    const approval = await servedApproval();
    const cookie = await opened(approval);
    expect((await approval.post(`${approval.base}/answer`, { choice: "deny", csrf: CSRF }, cookie)).status).toBe(200);
    expect(approval.answers).toEqual([{ choice: "deny", csrf: CSRF }]);
  });
});

describe("the settle period after the link is opened", () => {
  test("an allowing answer is refused until the settle period after the link was opened is over, however long the hold; the page is told what is left", async () => {
    expect(SETTLE_MS).toBeGreaterThan(SERVER_HOLD_MS);
    const approval = await servedApproval();
    const cookie = await opened(approval);
    approval.clock.now += 1_000;
    expect((await approval.get(approval.base, cookie)).body).toBe(`<p>page at ${approval.base}, settling ${SETTLE_MS - 1_000}</p>`);
    const answer = (choice: "once" | "deny") => approval.post(`${approval.base}/answer`, { choice, csrf: CSRF }, cookie);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, cookie)).status).toBe(200);
    approval.clock.now += SETTLE_MS - 1_000 - 1;
    const early = await answer("once");
    expect(early.status).toBe(425);
    expect(JSON.parse(early.body)).toEqual({ message: expect.stringMatching(/wait 5 s after the link is opened.*try again in 1 s/) as unknown });
    expect(approval.answers).toEqual([]);
    approval.clock.now += 1;
    expect((await approval.get(approval.base, cookie)).body).toBe(`<p>page at ${approval.base}, settling 0</p>`);
    expect((await approval.post(`${approval.base}/hold`, { csrf: CSRF }, cookie)).status).toBe(200);
    approval.clock.now += SERVER_HOLD_MS;
    expect((await answer("once")).status).toBe(200);
    expect(approval.answers).toEqual([{ choice: "once", csrf: CSRF }]);
  });

  test("a reader of a leaked link who opens it first cannot allow before the operator's browser, opening it within the settle period, ends its session", async () => {
    const approval = await servedApproval();
    const reader = await opened(approval);
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
