/**
 * A writer keeps the log open and remembers the head between appends
 * (log-handle.ts, head-view.ts): whatever happens to the path or the head
 * behind its back must be seen exactly as a fresh writer would see it.
 */
import { copyFileSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/audit/audit-log.js";
import { auditHeadPath } from "../../../src/audit/head.js";
import { ANCHORED_GENESIS_HASH, type AuditInput } from "../../../src/audit/record.js";
import { verifyAuditLog } from "../../../src/audit/verify.js";
import { tempDir } from "../config/temp-tree.js";

function input(index: number): AuditInput {
  return { call_id: `call-${index}`, scope: "kube", event: "ran", argv_head: ["get", "pods"], exit_code: 0 };
}

function events(file: string): string[] {
  return lines(file).map((line) => (JSON.parse(line) as { event: string }).event);
}

function lines(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").slice(0, -1);
}

/** How many of this process's descriptors are open on `file` (Linux: /proc/self/fd). */
function descriptorsOn(file: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;
}

async function writerWith(count: number): Promise<{ file: string; log: AuditLog; reports: string[] }> {
  const file = path.join(tempDir(), "audit.jsonl");
  const reports: string[] = [];
  const log = new AuditLog(file, () => new Date(), { report: (message) => reports.push(message) });
  for (let i = 1; i <= count; i += 1) expect((await log.append(input(i))).ok).toBe(true);
  return { file, log, reports };
}

describe.runIf(process.platform === "linux")("a writer that keeps the log open", () => {
  it("opens the log once for many appends", async () => {
    const { file } = await writerWith(5);
    expect(descriptorsOn(file)).toBe(1);
  });

  it("a log moved away with its head (rotation): the next append starts a new anchored log, the moved one is untouched", async () => {
    const { file, log } = await writerWith(3);
    const moved = `${file}.1`;
    renameSync(file, moved);
    renameSync(auditHeadPath(file), auditHeadPath(moved));
    const before = readFileSync(moved, "utf8");
    expect((await log.append(input(4))).ok).toBe(true);
    expect(readFileSync(moved, "utf8")).toBe(before);
    expect(lines(file).map((line) => (JSON.parse(line) as { prev: string }).prev)).toEqual([ANCHORED_GENESIS_HASH]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(descriptorsOn(moved)).toBe(0);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 1, problems: [] });
  });

  it("a log replaced by a copy of itself: appends go to the file the path names, not the old one", async () => {
    const { file, log } = await writerWith(2);
    const old = `${file}.old`;
    copyFileSync(file, `${file}.copy`);
    renameSync(file, old);
    renameSync(`${file}.copy`, file);
    expect((await log.append(input(3))).ok).toBe(true);
    expect(lines(old)).toHaveLength(2);
    expect(events(file)).toEqual(["ran", "ran", "ran"]);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 3, problems: [] });
  });

  it("a log replaced by a symlink: the append is refused and the link's target is not written", async () => {
    const { file, log, reports } = await writerWith(2);
    const target = path.join(path.dirname(file), "elsewhere.jsonl");
    writeFileSync(target, "");
    rmSync(file);
    symlinkSync(target, file);
    const result = await log.append(input(3));
    expect(result.ok).toBe(false);
    expect(readFileSync(target, "utf8")).toBe("");
    expect(reports).toHaveLength(1);
  });

  it("a log deleted with its head: the next append creates it again, anchored from its start", async () => {
    const { file, log } = await writerWith(2);
    rmSync(file);
    rmSync(auditHeadPath(file));
    expect((await log.append(input(3))).ok).toBe(true);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 1, problems: [] });
  });
});

describe("a writer that remembers the head", () => {
  it("a head replaced behind its back (another size) is read again: the next append records the mismatch", async () => {
    const { file, log } = await writerWith(2);
    writeFileSync(auditHeadPath(file), "garbage\n");
    expect((await log.append(input(3))).ok).toBe(true);
    expect(events(file)).toEqual(["ran", "ran", "audit-head-mismatch", "ran"]);
  });

  it("a head edited in place to the same size, its modification time set back: still read again", async () => {
    const { file, log } = await writerWith(3);
    const headFile = auditHeadPath(file);
    const { mtime, atime } = statSync(headFile);
    const text = readFileSync(headFile, "utf8");
    const { last_hash: digest } = JSON.parse(text) as { last_hash: string };
    // Another digest of the same length: the line the head anchors no longer matches it.
    const edited = text.replace(digest, `${digest.startsWith("0") ? "1" : "0"}${digest.slice(1)}`);
    writeFileSync(headFile, edited);
    utimesSync(headFile, atime, mtime);
    expect((await log.append(input(4))).ok).toBe(true);
    expect(events(file).slice(3)).toEqual(["audit-head-mismatch", "ran"]);
  });
});
