/**
 * The approval page in real Chromium (Debian's, driven by playwright-core),
 * against the built server over the SDK's real client: a click on an allowing
 * button does nothing, a hold (pointer or keyboard) allows and the waiting
 * call completes, Deny is a click, a grant from the page allows the next call,
 * an unanswered page times out; the page shows tokens and the agent's words as
 * text; wrong secret, foreign Host, cross-origin POST and replay are refused,
 * in the browser and with plain HTTP requests.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse } from "yaml";
import { approvalRecord, nextPending, pageUrl } from "../support/approvals.js";
import { launchChromium } from "../support/chromium.js";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { rawRequest } from "../support/http-request.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

let bin: FakeBin;
let root: string;
let session: McpSession;
let browser: BrowserContext;
/** A second browser (its own profile and cookies): what another process that read the link would be. */
let otherBrowser: BrowserContext;

const INTERACTIVE = { TORII_NO_GUI: "", TORII_OPEN_BROWSER: "0" };

function treeWith(settings: string): string {
  return makeConfigTree({
    "settings.yaml": settings,
    "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
    "providers/rec/rules.yaml": '# the operator\'s rules\nversion: "1"\ndeny: [push]\naccept: [status, log --oneline]\n',
  });
}

/**
 * The loopback address (a random one of 127.0.0.0/8), port, `Host` and origin, the one-time link's path and the
 * page's own path (`/a/<id>`) of a minted URL.
 */
function parts(url: string): { address: string; port: number; host: string; origin: string; link: string; base: string } {
  const parsed = new URL(url);
  return {
    address: parsed.hostname,
    port: Number(parsed.port),
    host: parsed.host,
    origin: parsed.origin,
    link: parsed.pathname,
    base: parsed.pathname.replace(/\/[^/]+$/, ""),
  };
}

/** Opens the page of a pending approval and waits until its buttons are armed. */
async function openArmed(url: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector("body[data-armed=yes]");
  return page;
}

/** Holds the pointer down on `name` until the page reports its answer. */
/** The CSRF token the page's HTML carries. */
async function csrfOf(page: Page): Promise<string> {
  return (await page.locator('meta[name="torii-csrf"]').getAttribute("content")) ?? "";
}

/** The page key the page's HTML carries. */
async function pageKeyOf(page: Page): Promise<string> {
  return (await page.locator('meta[name="torii-page-key"]').getAttribute("content")) ?? "";
}

/** The page key in a page's HTML as text. */
function keyIn(html: string): string {
  return /name="torii-page-key" content="([^"]+)"/.exec(html)?.[1] ?? "";
}

/** The status of an answer choosing `choice` POSTed from inside `page` (its cookies, its origin), with the page key `key`. */
function answerFrom(page: Page, target: string, choice: "deny" | "once", csrf: string, key: string): Promise<number> {
  return page.evaluate(
    async ([url, chosen, token, pageKey]) =>
      (
        await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-torii-page-key": pageKey },
          body: JSON.stringify({ choice: chosen, csrf: token }),
        })
      ).status,
    [target, choice, csrf, key] as const,
  );
}

async function holdButton(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole("button", { name, exact: typeof name === "string" }).hover();
  await page.mouse.down();
  await page.waitForSelector("body[data-answered]");
  await page.mouse.up();
}

beforeAll(async () => {
  bin = makeFakeBin();
  // A short settle period keeps these tests quick; the lease page's test runs with the default.
  root = treeWith('version: "1"\napproval:\n  timeout_seconds: 60\n  settle_seconds: 1\n');
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...INTERACTIVE });
  [browser, otherBrowser] = await Promise.all([launchChromium({}), launchChromium({})]);
});

afterAll(async () => {
  await Promise.all([browser.close(), otherBrowser.close()]);
  await session.close();
});

describe("press-and-hold", () => {
  test("a click, or a hold released early, on an allowing button sends nothing; Deny is one click", async () => {
    const call = session.call("rec", { args: ["reflog"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "reflog");
    const page = await openArmed(await pageUrl(root, pending.id));
    const answers: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/answer")) answers.push(request.postData() ?? "");
    });
    await page.getByRole("button", { name: "Allow once" }).click();
    await page.getByRole("button", { name: /^Allow for \d+ minutes$/ }).click();
    await page.getByRole("button", { name: "Allow once" }).hover();
    await page.mouse.down();
    await page.mouse.up();
    await page.getByRole("button", { name: "Deny", exact: true }).click();
    await page.waitForSelector("body[data-answered=yes]");
    expect(answers.map((body) => (JSON.parse(body) as { choice: string }).choice)).toEqual(["deny"]);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "human-deny" });
    expect(approvalRecord(root, pending.id).answer).toMatchObject({ choice: "deny", channel: "page" });
    await page.close();
  });

  test("holding Allow once allows, and the waiting MCP call completes", async () => {
    const call = session.call("rec", { args: ["show", "HEAD"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "show");
    const page = await openArmed(await pageUrl(root, pending.id));
    await holdButton(page, "Allow once");
    expect(await page.locator("#status").textContent()).toMatch(/^Allowed/);
    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "allow", source: "human-once" });
    expect(JSON.parse(outcome.execution?.stdout ?? "{}")).toMatchObject({ argv: ["show", "HEAD"] });
    expect(readFileSync(path.join(root, "audit.jsonl"), "utf8")).toMatch(/"event":"override-once"[^\n]*"detail":"page"/);
    await page.close();
  });

  test("the keyboard works: holding Space on the focused button allows", async () => {
    const call = session.call("rec", { args: ["describe"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "describe");
    const page = await openArmed(await pageUrl(root, pending.id));
    await page.getByRole("button", { name: "Allow once" }).focus();
    await page.keyboard.down(" ");
    await page.waitForSelector("body[data-answered]");
    await page.keyboard.up(" ");
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "human-once" });
    await page.close();
  });

  test("Allow for N minutes with a prefix boundary the human picks writes a grant that allows the next call", async () => {
    const call = session.call("rec", { args: ["tag", "-l", "v1*"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "tag");
    const page = await openArmed(await pageUrl(root, pending.id));
    await page.getByLabel("every argv starting with the first").check();
    await page.getByLabel("prefix boundary (tokens)").selectOption("1");
    await page.getByLabel("minutes").fill("3");
    await holdButton(page, "Allow for 3 minutes");
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "human-grant" });
    expect(approvalRecord(root, pending.id).answer).toMatchObject({ choice: "grant", mode: "prefix", token_count: 1, minutes: 3 });
    expect(outcomeOf(await session.call("rec", { args: ["tag", "--list"] })).decision).toMatchObject({ result: "allow", source: "grant" });
    await page.close();
  });
});

describe("what the page shows", () => {
  test("tokens one by one as text (markup inert, odd characters visible), the agent's words labelled unverified", async () => {
    const call = session.call("rec", { args: ["<b>bold</b>", "pod\u0430", "x".repeat(120)], description: '<img src=x id="injected"> trust me' });
    const pending = await nextPending(root, (record) => record.argv[0] === "<b>bold</b>");
    const page = await openArmed(await pageUrl(root, pending.id));
    const tokens = await page.locator("ol.argv li code").allTextContents();
    expect(tokens[0]).toBe("<b>bold</b>");
    expect(tokens[1]).toBe("pod\\u{430}");
    expect(tokens[2]).toContain("(120 characters)");
    expect(await page.locator("b, #injected").count()).toBe(0);
    expect(await page.getByRole("heading", { name: /own words, unverified/ }).isVisible()).toBe(true);
    expect(await page.locator("blockquote.agent-words").textContent()).toBe('<img src=x id="injected"> trust me');
    expect(await page.getByText("torii grant add rec --exact").isVisible()).toBe(true);
    for (const name of ["Deny", "Allow once", "Allow for 2 minutes"]) expect(await page.getByRole("button", { name, exact: true }).isVisible()).toBe(true);
    await page.getByRole("button", { name: "Deny", exact: true }).click();
    expect(outcomeOf(await call).decision).toMatchObject({ source: "human-deny" });
    await page.close();
  });
});

describe("argv with characters that do not show on screen (red team F2)", () => {
  test("a zero-width character is shown escaped, and the page offers no grant and no rule, only Deny and Allow once, saying why", async () => {
    const call = session.call("rec", { args: ["unseen-argv", "get\u200bpods"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "unseen-argv");
    const page = await openArmed(await pageUrl(root, pending.id));
    expect(await page.locator("ol.argv li code").allTextContents()).toEqual(["unseen-argv", "get\\u{200b}pods"]);
    for (const name of [/^Always allow$/, /^Always deny$/, /^Allow for \d+ minutes$/]) expect(await page.getByRole("button", { name }).count()).toBe(0);
    expect(await page.locator("#no-lasting").textContent()).toMatch(/not offered: the argv holds characters that do not show on screen/);
    const rulesBefore = readFileSync(path.join(root, "providers/rec/rules.yaml"), "utf8");
    await holdButton(page, "Allow once");
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "human-once" });
    expect(readFileSync(path.join(root, "providers/rec/rules.yaml"), "utf8")).toBe(rulesBefore);
    await page.close();
  });
});

describe("Always allow / Always deny", () => {
  test("the page shows what the rule would also allow; holding Always allow writes the exact rule (comments kept): the identical call is allowed by rules, an appended argument is not", async () => {
    const headless = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    expect(outcomeOf(await headless.call("rec", { args: ["cherry", "pick", "--continue"] })).decision).toMatchObject({ source: "headless" });
    await headless.close();

    const call = session.call("rec", { args: ["cherry", "pick"], description: "Apply the fix from main to this branch" });
    const pending = await nextPending(root, (record) => record.argv[0] === "cherry");
    const page = await openArmed(await pageUrl(root, pending.id));
    const offer = page.locator(".rule").filter({ has: page.getByRole("button", { name: "Always allow" }) });
    expect(await offer.textContent()).toContain("rec: cherry pick … (1 call");
    expect(await offer.locator("code").first().textContent()).toBe("/^cherry pick$/");
    expect(await offer.textContent()).toContain("It allows exactly this call");
    const denyOffer = page.locator(".rule").filter({ has: page.getByRole("button", { name: "Always deny" }) });
    expect(await denyOffer.textContent()).toContain("every call that starts with these tokens");
    expect(await page.getByRole("button", { name: "Always deny" }).isEnabled()).toBe(true);
    // The screenshot in docs/approval.md (refreshed with TORII_UPDATE_SCREENSHOT=1).
    const shot = await page.screenshot({ fullPage: true });
    expect(shot.subarray(1, 4).toString("latin1")).toBe("PNG");
    if (process.env.TORII_UPDATE_SCREENSHOT === "1") writeFileSync(path.resolve("docs/approval-page.png"), shot);
    await holdButton(page, "Always allow");
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "rules", rule: "/^cherry pick$/" });
    const rules = readFileSync(path.join(root, "providers/rec/rules.yaml"), "utf8");
    expect(rules).toContain("# the operator's rules");
    expect((parse(rules) as { accept: string[] }).accept).toEqual(["status", "log --oneline", "/^cherry pick$/"]);
    expect(outcomeOf(await session.call("rec", { args: ["cherry", "pick"] })).decision).toMatchObject({
      result: "allow",
      source: "rules",
      rule: "/^cherry pick$/",
    });
    // What the operator did not see stays unresolved (headless: denied), appended or prefixed.
    const after = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    for (const args of [["cherry", "pick", "--continue"], ["cherry", "pick", "-x", "main"], ["cherry"]]) {
      expect(outcomeOf(await after.call("rec", { args })).decision, args.join(" ")).toMatchObject({ result: "deny", source: "headless" });
    }
    await after.close();
    expect(readFileSync(path.join(root, "audit.jsonl"), "utf8")).toMatch(
      /"event":"policy-accept-added"[^\n]*"rule":"accept (targets\/[^/"]+\/)?rules\.yaml:\d+ sha256:[0-9a-f]{12}"/u,
    );
    await page.close();
  });

  test("a rule that could not take effect is shown disabled with the reason", async () => {
    const call = session.call("rec", { args: ["say", "hello world"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "say");
    const page = await openArmed(await pageUrl(root, pending.id));
    expect(await page.getByRole("button", { name: "Always allow" }).isDisabled()).toBe(true);
    expect(await page.locator("#why-accept").textContent()).toMatch(/white space/);
    await page.getByRole("button", { name: "Deny", exact: true }).click();
    expect(outcomeOf(await call).decision).toMatchObject({ source: "human-deny" });
    await page.close();
  });
});

describe("security of the page", () => {
  test("the one-time link: its first GET sets the session cookie, a second GET gets nothing; without the cookie nothing is served or answered; wrong secret, foreign Host, cross-origin or token-less POST, an allow without a hold, and replay are refused (plain HTTP)", async () => {
    const call = session.call("rec", { args: ["blame"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "blame");
    const { address, port, host, origin, link, base } = parts(await pageUrl(root, pending.id));
    let cookie = "";
    let pageKey = "";
    const post = (body: object, headers: Record<string, string> = {}, path = `${base}/answer`) =>
      rawRequest({
        address,
        port,
        path,
        method: "POST",
        headers: { host, origin, cookie, "x-torii-page-key": pageKey, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });

    expect((await rawRequest({ address, port, path: `${link.slice(0, -4)}AAAA`, headers: { host } })).status).toBe(404);
    expect((await rawRequest({ address, port, path: link, headers: { host: `rebound.test:${port}` } })).status).toBe(421);
    // Before the link is opened there is no session: no page, no script, no answer.
    for (const path of [base, `${base}/page.js`]) expect((await rawRequest({ address, port, path, headers: { host } })).status).toBe(403);
    expect((await post({ choice: "deny", csrf: "x" })).status).toBe(403);

    const opened = await rawRequest({ address, port, path: link, headers: { host } });
    expect(opened.status).toBe(303);
    // The redirect's URL carries the session's load key: a load of the page without it changes nothing.
    expect(opened.headers.location).toMatch(new RegExp(`^${base}\\?load=[A-Za-z0-9_-]{43}$`));
    const setCookie = String(opened.headers["set-cookie"]);
    expect(setCookie).toMatch(new RegExp(`^torii_session=[A-Za-z0-9_-]{43}; Path=${base}; HttpOnly; SameSite=Strict$`));
    cookie = setCookie.split(";")[0] ?? "";
    expect((await rawRequest({ address, port, path: base, headers: { host, cookie } })).status).toBe(403);
    const shown = await rawRequest({ address, port, path: String(opened.headers.location), headers: { host, cookie } });
    expect(shown.status).toBe(200);
    expect(shown.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(shown.headers["x-frame-options"]).toBe("DENY");
    expect(shown.headers["cache-control"]).toBe("no-store");
    expect(shown.body).not.toMatch(/<script>|style=/);
    const csrf = /name="torii-csrf" content="([^"]+)"/.exec(shown.body)?.[1] ?? "";
    pageKey = keyIn(shown.body);
    // The CSRF token alone (what the page's HTML gives) answers nothing without the cookie.
    expect((await post({ choice: "deny", csrf }, { cookie: "" })).status).toBe(403);
    expect((await post({ choice: "deny", csrf }, { cookie: "torii_session=forged-forged-forged-forged" })).status).toBe(403);
    expect((await post({ choice: "deny", csrf }, { origin: "http://evil.example" })).status).toBe(403);
    expect((await post({ choice: "deny", csrf }, { origin: "null" })).status).toBe(403);
    expect((await post({ choice: "deny", csrf: "forged" })).status).toBe(403);
    expect((await post({ choice: "deny", csrf }, { "content-type": "text/plain" })).status).toBe(415);
    // An allowing answer with no hold request before it cannot be a hold. Whether the 1 s settle period is over yet
    // depends on the machine, so either refusal may come first (test/unit/approval/page-server.test.ts pins each).
    expect([403, 425]).toContain((await post({ choice: "once", csrf })).status);
    expect((await post({ csrf }, { cookie: "" }, `${base}/hold`)).status).toBe(403);
    expect(approvalRecord(root, pending.id).status).toBe("pending");
    // A second GET of the same link (another process that read it) is told it was opened elsewhere and gets nothing,
    // and the first session ends too: which of the two read a leaked link is unknowable.
    const again = await rawRequest({ address, port, path: link, headers: { host } });
    expect(again.status).toBe(410);
    expect(again.body).toContain("already opened in another browser");
    expect(again.body).not.toMatch(/torii-csrf|set-cookie/i);
    expect(again.headers["set-cookie"]).toBeUndefined();
    expect((await post({ choice: "deny", csrf })).status).toBe(403);
    // A fresh link (`torii approvals list`) opens a new session, which answers once.
    const fresh = parts(await pageUrl(root, pending.id));
    const reopened = await rawRequest({ address, port, path: fresh.link, headers: { host } });
    cookie = String(reopened.headers["set-cookie"]).split(";")[0] ?? "";
    pageKey = keyIn((await rawRequest({ address, port, path: String(reopened.headers.location), headers: { host, cookie } })).body);
    expect((await post({ choice: "deny", csrf })).status).toBe(200);
    expect(outcomeOf(await call).decision).toMatchObject({ source: "human-deny" });
    expect((await post({ choice: "deny", csrf })).status).toBe(404);
  });

  test("a stolen session cookie without the page key (red team F1): its hold and answers are refused, its load of the page without the load key is refused and changes nothing, with the page's URL (history) it gets a 409 without the argv or the key and ends the session; the terminal answers", async () => {
    const call = session.call("rec", { args: ["stolen-cookie"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "stolen-cookie");
    const url = await pageUrl(root, pending.id);
    const { address, port, host, base } = parts(url);
    const page = await openArmed(url);
    const csrf = await csrfOf(page);
    const key = await pageKeyOf(page);
    // What another local process copies from the browser's profile: the cookie, nothing the page's HTML holds.
    const stolen = (await browser.cookies(url)).find((cookie) => cookie.name === "torii_session");
    expect(stolen).toBeDefined();
    const thief = (path: string, body: object, headers: Record<string, string> = {}) =>
      rawRequest({
        address,
        port,
        path,
        method: "POST",
        headers: { host, origin: `http://${host}`, cookie: `torii_session=${stolen?.value ?? ""}`, "content-type": "application/json", ...headers },
        body: JSON.stringify({ ...body, csrf }),
      });
    for (const headers of [{}, { "x-torii-page-key": "guessed" }, { "x-torii-page-key": "" }]) {
      expect((await thief(`${base}/hold`, {}, headers)).status).toBe(403);
      expect((await thief(`${base}/answer`, { choice: "deny" }, headers)).status).toBe(403);
      expect((await thief(`${base}/answer`, { choice: "once" }, headers)).status).toBe(403);
    }
    expect(approvalRecord(root, pending.id).status).toBe("pending");
    // The cookie alone does not even load the page: the load key is in the page's URL, not in any cookie.
    const unkeyed = await rawRequest({ address, port, path: base, headers: { host, cookie: `torii_session=${stolen?.value ?? ""}` } });
    expect(unkeyed.status).toBe(403);
    expect(unkeyed.body).not.toContain(key);
    // With the page's URL too (the browser's history), its load gets the 409 and ends the session.
    const { pathname, search } = new URL(page.url());
    const shown = await rawRequest({ address, port, path: `${pathname}${search}`, headers: { host, cookie: `torii_session=${stolen?.value ?? ""}` } });
    expect(shown.status).toBe(409);
    expect(shown.body).toContain("already loaded in this browser session");
    expect(shown.body).not.toContain("stolen-cookie");
    expect(shown.body).not.toContain(key);
    // Who loaded the page first is unknowable: the session that had the key ends, the operator's page too.
    expect(await answerFrom(page, `${base}/answer`, "deny", csrf, key)).toBe(403);
    expect(approvalRecord(root, pending.id).status).toBe("pending");
    expect((await runCli(["approvals", "deny", pending.id], { TORII_CONFIG_DIR: root })).status).toBe(0);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "human-deny" });
    await page.close();
  });

  test("a reload of the page gets a 409 notice (no key, no buttons) telling the operator to open a fresh link from the terminal; that link opens a page that answers", async () => {
    const call = session.call("rec", { args: ["reloaded-page"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "reloaded-page");
    const page = await openArmed(await pageUrl(root, pending.id));
    const key = await pageKeyOf(page);
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(409);
    const notice = (await page.locator("body").textContent()) ?? "";
    expect(notice).toMatch(/already loaded in this browser session.*torii approvals list/);
    expect(notice).not.toContain(key);
    expect(await page.locator("button, meta[name=torii-page-key]").count()).toBe(0);
    expect(approvalRecord(root, pending.id).status).toBe("pending");
    const fresh = await openArmed(await pageUrl(root, pending.id));
    await fresh.getByRole("button", { name: "Deny", exact: true }).click();
    await fresh.waitForSelector("body[data-answered=yes]");
    expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "human-deny" });
    await Promise.all([page.close(), fresh.close()]);
  });

  test("in Chromium: a second browser opening the same link gets nothing and cannot answer, and the first one's page stops answering; the terminal answers", async () => {
    const call = session.call("rec", { args: ["whatchanged"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "whatchanged");
    const url = await pageUrl(root, pending.id);
    const { base } = parts(url);
    const page = await openArmed(url);
    const intruder = await otherBrowser.newPage();
    try {
      const response = await intruder.goto(url);
      expect(response?.status()).toBe(410);
      expect(await intruder.locator("body").textContent()).toContain("already opened in another browser");
      expect(await intruder.locator("button").count()).toBe(0);
      expect((await intruder.goto(new URL(base, url).href))?.status()).toBe(403);
      expect(await answerFrom(intruder, `${base}/answer`, "deny", await csrfOf(page), await pageKeyOf(page))).toBe(403);
    } finally {
      await intruder.close();
    }
    expect(approvalRecord(root, pending.id).status).toBe("pending");
    // Which browser read a leaked link is unknowable: after a second open no page answers, the first one's neither.
    expect(await answerFrom(page, `${base}/answer`, "deny", await csrfOf(page), await pageKeyOf(page))).toBe(403);
    expect(approvalRecord(root, pending.id).status).toBe("pending");
    expect((await runCli(["approvals", "deny", pending.id], { TORII_CONFIG_DIR: root })).status).toBe(0);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "human-deny" });
    await page.close();
  });

  test("in Chromium, during the settle period after the link is opened: the allowing buttons sleep and say why, a hold sends nothing, an allow POSTed from inside the page is refused, and a second browser opening the link ends the page's session", async () => {
    const settlingRoot = treeWith('version: "1"\napproval:\n  timeout_seconds: 60\n  settle_seconds: 60\n');
    const settling = await startSession(settlingRoot, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...INTERACTIVE });
    try {
      const call = settling.call("rec", { args: ["describe"] });
      const pending = await nextPending(settlingRoot);
      const url = await pageUrl(settlingRoot, pending.id);
      const { base } = parts(url);
      const page = await browser.newPage();
      const sent: string[] = [];
      page.on("request", (request) => {
        if (request.method() === "POST") sent.push(request.url());
      });
      await page.goto(url);
      await page.waitForSelector("body[data-ready=yes]");
      expect(await page.locator("body").getAttribute("data-armed")).toBeNull();
      expect(await page.locator("#status").textContent()).toMatch(/^Allowing answers wake in \d+ s: if another browser opens this page's link meanwhile/);
      await page.getByRole("button", { name: "Allow once" }).hover();
      await page.mouse.down();
      await page.locator("#status", { hasText: /^Not yet/ }).waitFor();
      await page.mouse.up();
      expect(sent).toEqual([]);
      // The server is the authority, not the page's script: a hold and an allow sent from inside the page are refused.
      const csrf = await csrfOf(page);
      const statuses = await page.evaluate(
        async ([target, token, pageKey]) => {
          const send = (part: string, body: object) =>
            fetch(target + part, {
              method: "POST",
              headers: { "content-type": "application/json", "x-torii-page-key": pageKey },
              body: JSON.stringify({ ...body, csrf: token }),
            });
          const hold = await send("/hold", {});
          const answer = await send("/answer", { choice: "once" });
          return [hold.status, answer.status, ((await answer.json()) as { message: string }).message];
        },
        [base, csrf, await pageKeyOf(page)] as const,
      );
      expect(statuses).toEqual([200, 425, expect.stringMatching(/wait 60 s after the link is opened/)]);
      const intruder = await otherBrowser.newPage();
      expect((await intruder.goto(url))?.status()).toBe(410);
      await intruder.close();
      expect(await answerFrom(page, `${base}/answer`, "deny", csrf, await pageKeyOf(page))).toBe(403);
      expect(approvalRecord(settlingRoot, pending.id).status).toBe("pending");
      expect((await runCli(["approvals", "deny", pending.id], { TORII_CONFIG_DIR: settlingRoot })).status).toBe(0);
      expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "human-deny" });
      await page.close();
    } finally {
      await settling.close();
    }
  });

  test("in Chromium: a foreign Host (DNS rebinding) gets no page, a cross-origin page's POST changes nothing, a replayed answer is refused", async () => {
    const call = session.call("rec", { args: ["shortlog"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "shortlog");
    const url = await pageUrl(root, pending.id);
    const { address, port, origin, link, base } = parts(url);
    // A name that resolves to the page's own loopback address, as a rebound DNS name would.
    const rebinding = await launchChromium({ resolverRules: `MAP rebound.test ${address}` });
    try {
      const rebound = await (await rebinding.newPage()).goto(`http://rebound.test:${port}${link}`);
      expect(rebound?.status()).toBe(421);
    } finally {
      await rebinding.close();
    }
    const page = await browser.newPage();

    const evil: Server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<!doctype html><title>evil</title>");
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    try {
      await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const sent = page.waitForRequest((request) => request.url().endsWith("/answer"));
      // A no-cors POST is what a foreign page can send without a preflight; the browser hides (or blocks) the answer.
      await page.evaluate(async (target) => {
        await fetch(target, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: '{"choice":"once","csrf":"x"}' }).catch(
          () => undefined,
        );
      }, `${origin}${base}/answer`);
      // The evaluate awaited the fetch: the server has had the POST (the browser then hides its answer).
      expect((await sent).method()).toBe("POST");
    } finally {
      evil.close();
    }
    expect(approvalRecord(root, pending.id).status).toBe("pending");

    await page.goto(await pageUrl(root, pending.id));
    await page.waitForSelector("body[data-armed=yes]");
    const csrf = await page.locator('meta[name="torii-csrf"]').getAttribute("content");
    const pageKey = await pageKeyOf(page);
    await holdButton(page, "Allow once");
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "human-once" });
    expect(await answerFrom(page, `${base}/answer`, "once", csrf ?? "", pageKey)).toBe(404);
    await page.close();
  });
});

describe("a page the agent serves on loopback", () => {
  // On 127.0.0.1 (where the page server falls back to it) another port is the same site, so Chromium sent such a
  // page the SameSite=Strict session cookie: a no-cors GET of the approval page from there loaded the HTML a second
  // time, which ends the session (409), and the operator's own page, already shown, could no longer answer. The
  // page's random loopback address makes it another site; the browser also says which page made the request in
  // Sec-Fetch-Site, which the server refuses unless same-origin or none (page-server.test.ts checks both).
  test("its no-cors GET of the approval page, sent with the operator's cookie, leaves the operator's page answering", async () => {
    const call = session.call("rec", { args: ["whatchanged"] });
    const pending = await nextPending(root, (record) => record.argv[0] === "whatchanged");
    const url = await pageUrl(root, pending.id);
    const { origin, base } = parts(url);
    const page = await openArmed(url);
    const evil: Server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<!doctype html><title>the agent's dev server</title>");
    });
    await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve));
    const agentPage = await browser.newPage();
    try {
      await agentPage.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
      const sent = agentPage.waitForRequest((request) => request.url() === `${origin}${base}`);
      // The evaluate awaits the fetch: the server has answered it (the browser hides the answer from the page).
      await agentPage.evaluate(async (target) => {
        await fetch(target, { mode: "no-cors", credentials: "include" }).catch(() => undefined);
      }, `${origin}${base}`);
      expect((await sent).method()).toBe("GET");
    } finally {
      await agentPage.close();
      evil.close();
    }
    await page.bringToFront();
    await holdButton(page, "Allow once");
    expect(await page.locator("#status").textContent()).toMatch(/^Allowed/);
    expect(outcomeOf(await call).decision).toMatchObject({ result: "allow", source: "human-once" });
    await page.close();
  });
});

describe("timeout", () => {
  test("an unanswered page times out: the call is denied approval-timeout and the page's answer is refused afterwards", async () => {
    // The page must be ready before the approval times out: a machine too loaded to load it in time (the call was
    // answered first) tries again with twice the timeout, so load makes the test longer, never failed.
    for (let seconds = 5; ; seconds *= 2) {
      const shortRoot = treeWith(`version: "1"\napproval:\n  timeout_seconds: ${seconds}\n`);
      const short = await startSession(shortRoot, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...INTERACTIVE });
      try {
        let answered = false;
        const call = short.call("rec", { args: ["gc"] }, { timeout: 120_000 }).finally(() => {
          answered = true;
        });
        const pending = await nextPending(shortRoot);
        const page = await browser.newPage();
        // An approval that expired before its link was minted gives no link: the page was not ready in time either.
        const url = await pageUrl(shortRoot, pending.id).catch(() => undefined);
        const ready = (url === undefined ? Promise.reject(new Error("expired before its link")) : page.goto(url))
          .then(() => page.waitForSelector("body[data-ready=yes]"))
          .then(
            () => !answered,
            () => false,
          );
        if (!(await Promise.race([ready, call.then(() => false)])) && seconds < 40) {
          await page.close();
          continue;
        }
        expect(outcomeOf(await call).decision).toMatchObject({ result: "deny", source: "approval-timeout" });
        await page.getByRole("button", { name: "Deny", exact: true }).click();
        await page.waitForSelector("body[data-answered=refused]");
        expect(approvalRecord(shortRoot, pending.id).status).toBe("expired");
        await page.close();
        return;
      } finally {
        await short.close();
      }
    }
  });
});
