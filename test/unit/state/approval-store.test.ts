/**
 * The pending-approval queue on disk: files 0600 in a 0700 directory, one
 * answer wins (compare-and-swap), an expired or finished approval cannot be
 * answered, and a torn file answers nothing and stays on disk.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { ApprovalStore, approvalsDir } from "../../../src/state/approval-store.js";

const T0 = new Date("2026-01-01T12:00:00.000Z");

function storeAt(now: { value: Date }) {
  const root = mkdtempSync(path.join(os.tmpdir(), "torii-approvals-"));
  return { root, store: new ApprovalStore(root, { clock: () => now.value }) };
}

async function created(store: ApprovalStore, id = "0123456789abcdef") {
  return store.create({
    id,
    kind: "call",
    tool: "kubectl",
    target: "prod",
    argv: ["get", "pods"],
    url: "http://127.0.0.1:1/a/0123456789abcdef/secret-secret-secret",
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

  test("an id that is not 16 hex digits never names a file", () => {
    const { store } = storeAt({ value: T0 });
    expect(() => store.fileOf("../../etc/passwd")).toThrow(RangeError);
  });
});
