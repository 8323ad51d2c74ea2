/**
 * A writer that defers its head moves (the MCP server's, headDelayMs): its
 * synced appends resolve before the head moves, the head lags by at most the
 * delay, anchors only fsynced bytes meanwhile (a prefix, which readers
 * accept), and is put in place when the delay has passed or the process exits.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
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

function deferringLog(headDelayMs: number): { file: string; log: AuditLog; reports: string[] } {
  const file = path.join(tempDir(), "audit.jsonl");
  const reports: string[] = [];
  return { file, log: new AuditLog(file, () => new Date(), { headDelayMs, report: (message) => reports.push(message) }), reports };
}

describe("a writer that defers its head moves", () => {
  it("synced appends resolve with the head behind them (a prefix: a warning); settleHead puts it in place", async () => {
    const { file, log, reports } = deferringLog(60_000);
    for (let i = 1; i <= 3; i += 1) expect((await log.append(input(i))).ok).toBe(true);
    // A new log's first head is placed at once, under the first append's lock.
    expect(headLines(file)).toBe(1);
    const lagging = await verifyAuditLog(file);
    expect(lagging.ok).toBe(true);
    expect(lagging.problems).toEqual([{ line: 2, warning: true, reason: expect.stringMatching(/after the end audit.head anchors/) as unknown }]);

    await log.settleHead();
    expect(headLines(file)).toBe(3);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 3, problems: [] });
    expect(reports).toEqual([]);
  });

  it("moves the head by itself once the delay has passed", async () => {
    const { file, log } = deferringLog(20);
    for (let i = 1; i <= 3; i += 1) expect((await log.append(input(i))).ok).toBe(true);
    await vi.waitFor(() => expect(headLines(file)).toBe(3), { timeout: 10_000, interval: 10 });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 3, problems: [] });
  });

  it("a deferred append followed by a synced one: the head anchors both once placed", async () => {
    const { file, log } = deferringLog(60_000);
    expect((await log.append(input(1))).ok).toBe(true);
    expect((await log.appendBatch([input(2)], { deferSync: true })).ok).toBe(true);
    expect((await log.append(input(3))).ok).toBe(true);
    await log.settleHead();
    expect(headLines(file)).toBe(3);
  });

  it("a process that exits with a head waiting puts it in place on its way out", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const script = `
const { AuditLog } = await import(process.env.AUDIT_MODULE);
const log = new AuditLog(process.argv[1], undefined, { headDelayMs: 600000 });
for (let i = 0; i < 3; i += 1) await log.append({ call_id: "exit-" + i, scope: "kube", event: "ran", exit_code: 0 });
process.exit(0);
`;
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script, file], {
        env: { PATH: process.env.PATH ?? "", AUDIT_MODULE: BUILT_LOG },
        stdio: "ignore",
        shell: false,
      });
      child.on("error", reject);
      child.on("close", resolve);
    });
    expect(code).toBe(0);
    expect(headLines(file)).toBe(3);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 3, problems: [] });
  });
});
