/**
 * The pending-approval queue on disk: files 0600 in a 0700 directory, one
 * answer wins (compare-and-swap), an expired or finished approval cannot be
 * answered, a torn file answers nothing and stays on disk, and the file holds
 * only digests of the page's one-time secrets.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { ApprovalStore, approvalsDir } from "../../../src/state/approval-store.js";
import { MAX_PAGE_SECRETS, pageSecretDigest } from "../../../src/state/page-secret.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const T0 = new Date("2026-01-01T12:00:00.000Z");

function storeAt(now: { value: Date }) {
  const root = tempDirectory("torii-approvals-");
  return { root, store: new ApprovalStore(root, { clock: () => now.value }) };
}

async function created(store: ApprovalStore, id = "0123456789abcdef") {
  return store.create({
    id,
    kind: "call",
    tool: "kubectl",
    target: "prod",
    argv: ["get", "pods"],
    page: "http://127.0.0.1:1/a/0123456789abcdef",
    page_secrets: [],
    created_at: T0.toISOString(),
    expires_at: new Date(T0.getTime() + 120_000).toISOString(),
  });
}

describe("ApprovalStore", () => {
  test("a pending approval is written 0600 in a 0700 directory and listed", async () => {
    const { root, store } = storeAt({ value: T0 });
    await created(store);
    expect(statSync(approvalsDir(root)).mode & 0o777).toBe(0o700);
    expect(statSync(store.fileOf("0123456789abcdef")).mode & 0o777).toBe(0o600);
    expect(store.list().pending.map((record) => record.id)).toEqual(["0123456789abcdef"]);
  });

  test("the first answer wins; a second answer, a timeout or a withdrawal after it is refused", async () => {
    const { store } = storeAt({ value: T0 });
    await created(store);
    const answers = await Promise.all([
      store.answer("0123456789abcdef", { choice: "once", channel: "cli", by: "a" }),
      store.answer("0123456789abcdef", { choice: "deny", channel: "page", by: "b" }),
    ]);
    expect(answers.filter((answer) => answer.ok)).toHaveLength(1);
    expect(answers.find((answer) => !answer.ok)).toMatchObject({ refusal: "not-pending" });
    expect(await store.finish("0123456789abcdef", "expired")).toMatchObject({ ok: false, refusal: "not-pending" });
    expect(store.list().pending).toEqual([]);
  });

  test("an answer whose page session ended while it waited for the lock is refused under the lock, and the approval stays pending", async () => {
    const { store } = storeAt({ value: T0 });
    await created(store);
    let asked = 0;
    const ended = () => {
      asked += 1;
      return false;
    };
    expect(await store.answer("0123456789abcdef", { choice: "once", channel: "page", by: "the approval page" }, ended)).toMatchObject({
      ok: false,
      refusal: "ended",
    });
    expect(asked).toBe(1);
    expect(store.list().pending.map((record) => record.id)).toEqual(["0123456789abcdef"]);
  });

  test("after its expiry an approval cannot be answered, only marked expired", async () => {
    const now = { value: T0 };
    const { store } = storeAt(now);
    await created(store);
    now.value = new Date(T0.getTime() + 121_000);
    expect(store.list().pending).toEqual([]);
    expect(await store.answer("0123456789abcdef", { choice: "once", channel: "cli", by: "a" })).toMatchObject({ ok: false, refusal: "expired" });
    expect(await store.finish("0123456789abcdef", "expired")).toMatchObject({ ok: true, record: { status: "expired" } });
  });

  test("a torn file answers nothing, is reported by list, and stays on disk byte for byte", async () => {
    const { store } = storeAt({ value: T0 });
    await created(store);
    const file = store.fileOf("0123456789abcdef");
    const torn = readFileSync(file, "utf8").slice(0, 60);
    writeFileSync(file, torn);
    expect(store.list()).toMatchObject({ pending: [], invalid: [{ kind: "torn" }] });
    expect(await store.answer("0123456789abcdef", { choice: "once", channel: "cli", by: "a" })).toMatchObject({ ok: false, refusal: "invalid" });
    expect(readFileSync(file, "utf8")).toBe(torn);
  });

  test("the file holds no secret that opens the page: a minted URL's secret is stored as a digest, consumed once; the file's own contents open nothing", async () => {
    const { store } = storeAt({ value: T0 });
    await created(store);
    const minted = await store.mintPageSecret("0123456789abcdef");
    if (!minted.ok) throw new Error(minted.detail);
    expect(minted.url).toMatch(/^http:\/\/127\.0\.0\.1:1\/a\/0123456789abcdef\/[A-Za-z0-9_-]{43}$/);
    const secret = minted.url.split("/").pop() ?? "";
    const text = readFileSync(store.fileOf("0123456789abcdef"), "utf8");
    expect(text).not.toContain(secret);
    expect(text).toContain(pageSecretDigest(secret));
    // What a process that reads the file has: the page address and the digests. None of it is a secret.
    for (const stolen of [...text.matchAll(/[0-9a-f]{64}/g)].map((match) => match[0])) {
      expect(await store.consumePageSecret("0123456789abcdef", stolen)).toBe(false);
    }
    expect(await store.consumePageSecret("0123456789abcdef", secret)).toBe(true);
    expect(await store.consumePageSecret("0123456789abcdef", secret)).toBe(false);
    expect(readFileSync(store.fileOf("0123456789abcdef"), "utf8")).not.toContain(pageSecretDigest(secret));
  });

  test("minting keeps the newest MAX_PAGE_SECRETS unused secrets and is refused once the approval is answered", async () => {
    const { store } = storeAt({ value: T0 });
    await created(store);
    const urls: string[] = [];
    for (let index = 0; index <= MAX_PAGE_SECRETS; index += 1) {
      const minted = await store.mintPageSecret("0123456789abcdef");
      if (minted.ok) urls.push(minted.url);
    }
    const secretOf = (url: string | undefined): string => url?.split("/").pop() ?? "";
    expect(await store.consumePageSecret("0123456789abcdef", secretOf(urls[0]))).toBe(false);
    expect(await store.consumePageSecret("0123456789abcdef", secretOf(urls[1]))).toBe(true);
    await store.answer("0123456789abcdef", { choice: "deny", channel: "cli", by: "a" });
    expect(await store.consumePageSecret("0123456789abcdef", secretOf(urls[2]))).toBe(false);
    expect(await store.mintPageSecret("0123456789abcdef")).toMatchObject({ ok: false, refusal: "not-pending" });
  });

  test("an id that is not 16 hex digits never names a file", () => {
    const { store } = storeAt({ value: T0 });
    expect(() => store.fileOf("../../etc/passwd")).toThrow(RangeError);
  });
});
