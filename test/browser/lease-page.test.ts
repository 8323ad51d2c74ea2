/**
 * The approval page in lease mode, in real Chromium (Debian's, driven by
 * playwright-core) against the built server over the SDK's real client: a
 * call to an inactive target shows the requested target and the active ones
 * with their expiry; a click on Replace sends nothing; holding Replace
 * activates the lease (the other one ends) and the call completes under its
 * accept rule.
 */
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { nextPending, pageUrl } from "../support/approvals.js";
import { launchChromium } from "../support/chromium.js";
import { leaseRequestTree, liveKubeTargets } from "../support/lease-requests.js";
import { makeFakeBin, type FakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

let bin: FakeBin;
let root: string;
let session: McpSession;
let browser: BrowserContext;

beforeAll(async () => {
  bin = makeFakeBin();
  root = leaseRequestTree('version: "1"\napproval:\n  timeout_seconds: 60\n');
  session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, TORII_NO_GUI: "", TORII_OPEN_BROWSER: "0" });
  browser = await launchChromium({});
});

afterAll(async () => {
  await browser.close();
  await session.close();
});

describe("lease page", () => {
  test("a click on Replace does nothing; holding it activates the lease and the call completes", async () => {
    expect((await runCli(["target", "activate", "kube", "dev"], { TORII_CONFIG_DIR: root })).status).toBe(0);
    const call = session.call("kube", { args: ["get", "pods"], target: "prod" });
    const pending = await nextPending(root, (record) => record.kind === "lease");
    const page = await browser.newPage();
    const answers: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/answer")) answers.push(request.postData() ?? "");
    });
    await page.goto(await pageUrl(root, pending.id));
    await page.waitForSelector("body[data-armed=yes]");
    await expect(page.locator("h1").textContent()).resolves.toContain("prod");
    await expect(page.locator(".active-leases").textContent()).resolves.toMatch(/dev until \d{4}-/);
    await expect(page.locator("#add-warning").isVisible()).resolves.toBe(true);

    const replace = page.getByRole("button", { name: /^Replace/ });
    await replace.click();
    expect(answers).toEqual([]);
    await expect(page.locator("body").getAttribute("data-answered")).resolves.toBeNull();

    await page.locator("#minutes").fill("9");
    await replace.hover();
    await page.mouse.down();
    await page.waitForSelector("body[data-answered=yes]");
    await page.mouse.up();
    expect(JSON.parse(answers[0] ?? "{}")).toMatchObject({ choice: "lease-replace", minutes: 9 });

    const outcome = outcomeOf(await call);
    expect(outcome.decision).toMatchObject({ result: "allow", source: "rules" });
    expect(liveKubeTargets(root)).toEqual(["prod"]);
  });
});
