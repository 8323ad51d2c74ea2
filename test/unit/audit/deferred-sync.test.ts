/**
 * A writer that defers (the MCP server's, headDelayMs): its synced appends
 * resolve before the head moves; records handed over with `deferWrite` wait
 * in memory and go out with its next append, or within the delay; bytes
 * written without an fsync are fsynced and anchored within the delay; what
 * waits is written when the server finishes or the process exits. Meanwhile
 * the head anchors a prefix, which readers accept.
 */
import { spawn } from "node:child_process";
import { readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { AuditLog } from "../../../src/audit/audit-log.js";
import { auditHeadPath } from "../../../src/audit/head.js";
import type { AuditInput } from "../../../src/audit/record.js";
import { verifyAuditLog } from "../../../src/audit/verify.js";
import { tempDir } from "../config/temp-tree.js";

const BUILT_LOG = pathToFileURL(path.resolve(import.meta.dirname, "../../../dist/audit/audit-log.js")).href;

function input(index: number): AuditInput {
  return { call_id: `call-${index}`, scope: "kube", event: "ran", argv_head: ["get", "pods"], exit_code: 0 };
}

function headLines(file: string): number {
  return (JSON.parse(readFileSync(auditHeadPath(file), "utf8")) as { lines: number }).lines;
}

/** The head anchors all `records` lines, and the chain verifies without a warning. */
async function expectAnchored(file: string, records: number): Promise<void> {
  expect(headLines(file)).toBe(records);
  expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records, problems: [] });
}

function callIds(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { call_id: string }).call_id);
}

function deferringLog(headDelayMs: number): { file: string; log: AuditLog; reports: string[] } {
  const file = path.join(tempDir(), "audit.jsonl");
  const reports: string[] = [];
  return { file, log: new AuditLog(file, () => new Date(), { headDelayMs, report: (message) => reports.push(message) }), reports };
}

/** Runs `script` (an ES module with AuditLog in scope) in a child process on `file`; resolves its exit code. */
function runScript(script: string, file: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", `const { AuditLog } = await import(process.env.AUDIT_MODULE);\n${script}`, file], {
      env: { PATH: process.env.PATH ?? "", AUDIT_MODULE: BUILT_LOG },
      stdio: "ignore",
      shell: false,
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
}

describe("a writer that defers its head moves", () => {
  it("synced appends resolve with the head behind them (a prefix: a warning); settle puts it in place", async () => {
    const { file, log, reports } = deferringLog(60_000);
    for (let i = 1; i <= 3; i += 1) expect((await log.append(input(i))).ok).toBe(true);
    // A new log's first head is placed at once, under the first append's lock.
    expect(headLines(file)).toBe(1);
    const lagging = await verifyAuditLog(file);
    expect(lagging.ok).toBe(true);
    expect(lagging.problems).toEqual([{ line: 2, warning: true, reason: expect.stringMatching(/after the end audit.head anchors/) as unknown }]);

    await log.settle();
    await expectAnchored(file, 3);
    expect(reports).toEqual([]);
  });

  it("moves the head by itself once the delay has passed", async () => {
    const { file, log } = deferringLog(20);
    for (let i = 1; i <= 3; i += 1) expect((await log.append(input(i))).ok).toBe(true);
    await vi.waitFor(() => expect(headLines(file)).toBe(3), { timeout: 30_000, interval: 10 });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 3, problems: [] });
  });

  it("an append written without an fsync (deferSync) is fsynced and anchored within the delay", async () => {
    const { file, log } = deferringLog(20);
    expect((await log.append(input(1))).ok).toBe(true);
    expect((await log.appendBatch([input(2)], { deferSync: true })).ok).toBe(true);
    expect(headLines(file)).toBe(1);
    await vi.waitFor(() => expect(headLines(file)).toBe(2), { timeout: 30_000, interval: 10 });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 2, problems: [] });
  });
});

describe("records handed over with deferWrite", () => {
  it("wait in memory and go out first in the writer's next append, which resolves them with their hash", async () => {
    const { file, log, reports } = deferringLog(60_000);
    expect((await log.append(input(1))).ok).toBe(true);
    let resultWritten = false;
    const result = log.appendBatch([input(2), input(3)], { deferWrite: true, onWritten: () => (resultWritten = true) });
    // Not in the file yet: nothing made this writer append.
    await new Promise((resolve) => setImmediate(resolve));
    expect(callIds(file)).toEqual(["call-1"]);
    expect(resultWritten).toBe(false);

    const next = await log.appendBatch([input(4)], { deferSync: true });
    expect(next.ok).toBe(true);
    expect(callIds(file)).toEqual(["call-1", "call-2", "call-3", "call-4"]);
    const carried = await result;
    expect(resultWritten).toBe(true);
    const lines = readFileSync(file, "utf8").split("\n");
    expect(carried).toEqual({ ok: true, hash: (JSON.parse(lines[2] ?? "") as { hash: string }).hash });

    await log.settle();
    await expectAnchored(file, 4);
    expect(reports).toEqual([]);
  });

  it("are written, fsynced and anchored by themselves within the delay", async () => {
    const { file, log } = deferringLog(20);
    expect((await log.append(input(1))).ok).toBe(true);
    expect(await log.appendBatch([input(2)], { deferWrite: true })).toMatchObject({ ok: true });
    expect(callIds(file)).toEqual(["call-1", "call-2"]);
    await vi.waitFor(() => expect(headLines(file)).toBe(2), { timeout: 30_000, interval: 10 });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 2, problems: [] });
  });

  it("are written when the writer finishes, and from then on at once", async () => {
    const { file, log } = deferringLog(60_000);
    expect((await log.append(input(1))).ok).toBe(true);
    const waiting = log.appendBatch([input(2)], { deferWrite: true });
    await log.finish();
    expect(await waiting).toMatchObject({ ok: true });
    expect(headLines(file)).toBe(2);
    expect(await log.appendBatch([input(3)], { deferWrite: true })).toMatchObject({ ok: true });
    expect(callIds(file)).toEqual(["call-1", "call-2", "call-3"]);
  });

  it("fail with the append that carried them, reported once", async () => {
    const { file, log, reports } = deferringLog(60_000);
    symlinkSync(path.join(tempDir(), "elsewhere.jsonl"), file);
    const waiting = log.appendBatch([input(1)], { deferWrite: true });
    expect(await log.append(input(2))).toMatchObject({ ok: false });
    expect(await waiting).toMatchObject({ ok: false });
    expect(reports).toHaveLength(1);
  });

  it("an invalid record is refused at once, not kept waiting", async () => {
    const { log, reports } = deferringLog(60_000);
    expect(await log.appendBatch([{ ...input(1), scope: "" }], { deferWrite: true })).toMatchObject({ ok: false });
    expect(await log.appendBatch([], { deferWrite: true })).toMatchObject({ ok: false });
    expect(reports).toHaveLength(2);
  });
});

describe("a process that exits with something waiting", () => {
  it("stays up for records waiting, so an append awaiting them goes on", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const code = await runScript(
      `const log = new AuditLog(process.argv[1], undefined, { headDelayMs: 50 });
await log.append({ call_id: "wait-0", scope: "kube", event: "invoke" });
const waited = await log.appendBatch([{ call_id: "wait-0", scope: "kube", event: "ran", exit_code: 0 }], { deferWrite: true });
if (waited.ok) await log.append({ call_id: "after", scope: "kube", event: "invoke" });`,
      file,
    );
    expect(code).toBe(0);
    expect(callIds(file)).toEqual(["wait-0", "wait-0", "after"]);
  });

  it("puts a waiting head in place on its way out", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const code = await runScript(
      `const log = new AuditLog(process.argv[1], undefined, { headDelayMs: 600000 });
for (let i = 0; i < 3; i += 1) await log.append({ call_id: "exit-" + i, scope: "kube", event: "ran", exit_code: 0 });
process.exit(0);`,
      file,
    );
    expect(code).toBe(0);
    await expectAnchored(file, 3);
  });

  it("writes, fsyncs and anchors the records still waiting", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const code = await runScript(
      `const log = new AuditLog(process.argv[1], undefined, { headDelayMs: 600000 });
await log.append({ call_id: "exit-0", scope: "kube", event: "invoke" });
await log.appendBatch([{ call_id: "exit-1", scope: "kube", event: "invoke" }], { deferSync: true });
void log.appendBatch([{ call_id: "exit-1", scope: "kube", event: "ran", exit_code: 0 }], { deferWrite: true });
process.exit(0);`,
      file,
    );
    expect(code).toBe(0);
    expect(callIds(file)).toEqual(["exit-0", "exit-1", "exit-1"]);
    await expectAnchored(file, 3);
  });
});
