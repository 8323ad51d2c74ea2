import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog, auditLogPath, type AuditAppendResult } from "../../../src/audit/audit-log.js";
import { ANCHORED_GENESIS_HASH, auditFields, GENESIS_HASH, sealAuditLine, sha256Hex, type AuditInput } from "../../../src/audit/record.js";
import { auditHeadPath } from "../../../src/audit/head.js";
import { visitLinesFromEnd } from "../../../src/audit/file-tail.js";
import { readRecentCalls } from "../../../src/audit/recent-calls.js";
import { tailAuditLog, verifyAuditBytes, verifyAuditLog } from "../../../src/audit/verify.js";
import { tempDir } from "../config/temp-tree.js";

/** The bytes this process has read so far, from every file, pipe and socket (Linux: /proc/self/io `rchar`). */
function bytesReadByThisProcess(): number {
  return Number(/^rchar: (\d+)$/mu.exec(readFileSync("/proc/self/io", "utf8"))?.[1]);
}

/** A clock that ticks one second per call, so records are told apart by time. */
function tickingClock(start = Date.parse("2026-01-01T00:00:00.000Z")): () => Date {
  let now = start;
  return () => new Date((now += 1000));
}

function quietLog(file: string, reports: string[] = []): AuditLog {
  return new AuditLog(file, tickingClock(), { report: (message) => reports.push(message) });
}

function input(index: number, extra: Partial<AuditInput> = {}): AuditInput {
  return { call_id: `call-${index}`, scope: "aws/prod", event: "ran", argv_head: ["s3", "ls"], exit_code: 0, ...extra };
}

async function writeRecords(file: string, count: number): Promise<string[]> {
  const log = quietLog(file);
  for (let i = 1; i <= count; i += 1) {
    const result = await log.append(input(i));
    expect(result.ok).toBe(true);
  }
  return readLines(file);
}

/** Lines as a Torii without heads wrote them: the chain starts at 64 zeros. */
function preHeadLines(count: number): string[] {
  const lines: string[] = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= count; i += 1) {
    const { line } = sealAuditLine(auditFields(input(i)), new Date(Date.UTC(2025, 0, 1, 0, 0, i)), prev);
    lines.push(line);
    prev = sha256Hex(line);
  }
  return lines;
}

function readLines(file: string): string[] {
  return readFileSync(file, "utf8").split("\n").slice(0, -1);
}

function verifyLines(lines: readonly string[]) {
  return verifyAuditBytes(Buffer.from(lines.map((line) => `${line}\n`).join("")));
}

function problemLines(lines: readonly string[]): (number | undefined)[] {
  return verifyLines(lines).problems.map((problem) => problem.line);
}

describe("AuditLog.append", () => {
  it("creates <root>/audit.jsonl with mode 0600 and chains from the anchored genesis", async () => {
    const root = path.join(tempDir(), "root");
    const file = auditLogPath(root);
    const result = await quietLog(file).append(input(1));
    expect(result.ok).toBe(true);
    if (process.platform !== "win32") expect(statSync(file).mode & 0o777).toBe(0o600);
    const [first] = readLines(file);
    const record = JSON.parse(first ?? "") as { prev: string; hash: string };
    expect(record.prev).toBe(ANCHORED_GENESIS_HASH);
    expect(result.ok && result.hash).toBe(record.hash);
  });

  it("chains every record on the previous line's digest, and the chain verifies", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 25);
    lines.forEach((line, index) => {
      const { prev } = JSON.parse(line) as { prev: string };
      expect(prev).toBe(index === 0 ? ANCHORED_GENESIS_HASH : sha256Hex(lines[index - 1] ?? ""));
    });
    expect(await verifyAuditLog(file)).toEqual({ ok: true, records: 25, problems: [], lastHash: sha256Hex(lines[24] ?? "") });
  });

  it("keeps one process's concurrent appends whole and chained", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const log = quietLog(file);
    const other = quietLog(file);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? log : other).append(input(i))));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 60, problems: [] });
  });

  it("never throws or rejects: a failure is reported once and returned", async () => {
    const dir = tempDir();
    const file = path.join(dir, "audit.jsonl");
    mkdirSync(file);
    const reports: string[] = [];
    const result: AuditAppendResult = await quietLog(file, reports).append(input(1, { detail: "SECRET-DETAIL" }));
    expect(result.ok).toBe(false);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/^torii: audit: could not append to .*audit\.jsonl: /);
    expect(reports[0]).not.toContain("SECRET-DETAIL");
  });

  it("refuses bad input without writing, and keeps working afterwards", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const reports: string[] = [];
    const log = quietLog(file, reports);
    const bad = await log.append(input(1, { policy_hash: "not-a-hash" }));
    expect(bad.ok).toBe(false);
    expect(reports[0]).toMatch(/policy_hash must be 64 lowercase hex digits/);
    expect(existsSync(file)).toBe(false);
    expect((await log.append(input(2))).ok).toBe(true);
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 1 });
  });

  it.skipIf(process.platform === "win32")("refuses to write through a symlink", async () => {
    const dir = tempDir();
    const target = path.join(dir, "elsewhere.txt");
    writeFileSync(target, "");
    const file = path.join(dir, "audit.jsonl");
    symlinkSync(target, file);
    const result = await quietLog(file).append(input(1));
    expect(result.ok).toBe(false);
    expect(readFileSync(target, "utf8")).toBe("");
  });

  it("takes over a lock left behind by a crashed writer once it is stale", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    mkdirSync(`${file}.lock`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${file}.lock`, old, old);
    expect((await quietLog(file).append(input(1))).ok).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it.runIf(process.platform === "linux")("reads only the tail: an append after 1 GiB of history reads a few KiB", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 2);
    // A sparse 1 GiB prefix: reading it whole would take seconds and a 1 GiB buffer.
    truncateSync(file, 0);
    truncateSync(file, 2 ** 30);
    appendFileSync(file, `\n${lines[0] ?? ""}\n${lines[1] ?? ""}\n`);
    // A head that matches, as the writer would have left it: the append reads neither file whole.
    const head = { v: 1, lines: 3, bytes: statSync(file).size, last_hash: sha256Hex(lines[1] ?? "") };
    writeFileSync(auditHeadPath(file), `${JSON.stringify(head)}\n`);
    // Bytes read, not time: every read(2) of this process (its thread pool's too) counts in rchar.
    const before = bytesReadByThisProcess();
    expect((await quietLog(file).append(input(3))).ok).toBe(true);
    const tail = await tailAuditLog(file, 2);
    const read = bytesReadByThisProcess() - before;
    // The records and the head are a few KiB, a 16 KiB chunk from the end; the rest is this worker's own traffic.
    expect(read).toBeLessThan(1 << 20);
    expect(tail).toMatchObject([
      { intact: true, record: { call_id: "call-2" } },
      { intact: true, record: { call_id: "call-3", prev: sha256Hex(lines[1] ?? "") } },
    ]);
  });
});

describe("verifyAuditLog: tampering is found at the right line", () => {
  it("an edited field: the edited line", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 10);
    lines[4] = (lines[4] ?? "").replace('"exit_code":0', '"exit_code":1');
    const result = verifyLines(lines);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([{ line: 5, warning: false, reason: expect.stringMatching(/edited/) as unknown }]);
  });

  it("an edited field with its hash recomputed: the next line", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 10);
    const record = JSON.parse(lines[4] ?? "") as AuditInput & { prev: string; time: string };
    lines[4] = sealAuditLine(auditFields({ ...record, exit_code: 1 }), new Date(record.time), record.prev).line;
    expect(problemLines(lines)).toEqual([6]);
  });

  it("a deleted record: the line after the gap", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 10);
    lines.splice(3, 1);
    const result = verifyLines(lines);
    expect(result.problems).toEqual([{ line: 4, warning: false, reason: expect.stringMatching(/prev does not match/) as unknown }]);
    expect(result.records).toBe(9);
  });

  // Before, the reader's UTF-8 decoder dropped a leading byte-order mark: the line passed as an intact
  // record and the break was reported at the next line (or, on the last line, nowhere in the chain).
  it("a byte-order mark put before a record: that line, and tail does not call it intact", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 5);
    lines[2] = `\ufeff${lines[2] ?? ""}`;
    expect(problemLines(lines)).toEqual([3]);
    lines[2] = (lines[2] ?? "").slice(1);
    lines[4] = `\ufeff${lines[4] ?? ""}`;
    expect(problemLines(lines)).toEqual([5]);
    writeFileSync(file, `${lines.join("\n")}\n`);
    expect((await tailAuditLog(file, 1))[0]).toEqual({ unreadable: "not a JSON line" });
  });

  it("the first record deleted: line 1", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 5);
    expect(problemLines(lines.slice(1))).toEqual([1]);
  });

  it("two records swapped: the first of them", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 10);
    [lines[5], lines[6]] = [lines[6] ?? "", lines[5] ?? ""];
    expect(problemLines(lines)[0]).toBe(6);
    expect(problemLines(lines)).toEqual([6, 7, 8]);
  });

  it("a forged record inserted with a valid hash and prev: the genuine record after it", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 10);
    const forged = sealAuditLine(auditFields(input(99, { event: "allowed-by-rules" })), new Date(), sha256Hex(lines[2] ?? "")).line;
    lines.splice(3, 0, forged);
    expect(problemLines(lines)).toEqual([5]);
  });

  it("a record copied from elsewhere in the log: the copy", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 10);
    lines.splice(3, 0, lines[7] ?? "");
    expect(problemLines(lines)[0]).toBe(4);
  });

  it("a reformatted record: that line", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 5);
    lines[2] = JSON.stringify(JSON.parse(lines[2] ?? ""), null, 1).replaceAll("\n", "");
    expect(verifyLines(lines).problems).toEqual([{ line: 3, warning: false, reason: expect.stringMatching(/laid out/) as unknown }]);
  });

  it("a record replaced by garbage: that line, not torn", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 5);
    lines[1] = "garbage";
    expect(verifyLines(lines).problems).toEqual([{ line: 2, warning: false, reason: "not a JSON line" }]);
  });
});

// Before, a reader gathered a line of any length chunk by chunk (quadratic): a 16 MiB garbage line kept
// the next writer under the log's lock, its event loop blocked, for seconds, long enough for the other
// writers to time out or take the lock over as stale.
describe("a line longer than any record", () => {
  // 1 MiB: far longer than any record (and than MAX_AUDIT_LINE_BYTES).
  const huge = "x".repeat(1024 * 1024);

  it("is visited as null, its bytes not gathered, and the lines around it as they are", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 2);
    writeFileSync(file, `${lines[0] ?? ""}\n${huge}\n${lines[1] ?? ""}\n${huge}`);
    const seen: [string | null, boolean][] = [];
    const fd = openSync(file, "r");
    try {
      visitLinesFromEnd(fd, statSync(file).size, (line, terminated) => {
        seen.push([line === null ? null : line.toString("utf8"), terminated]);
        return false;
      });
    } finally {
      closeSync(fd);
    }
    expect(seen).toEqual([
      [null, false],
      [lines[1] ?? "", true],
      [null, true],
      [lines[0] ?? "", true],
    ]);
  });

  it("the next append chains past it to the last record, keeps an unterminated one (no crash leaves one), and verify names it", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 2);
    appendFileSync(file, huge);
    expect((await quietLog(file).append(input(3))).ok).toBe(true);
    const after = readLines(file);
    expect(after.slice(0, 2)).toEqual(lines);
    expect(after[2]).toBe(huge);
    expect(after).toHaveLength(4);
    expect(JSON.parse(after[3] ?? "")).toMatchObject({ call_id: "call-3", prev: sha256Hex(lines[1] ?? "") });
    const result = await verifyAuditLog(file);
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatchObject({ line: 3, warning: false });
    expect(await tailAuditLog(file, 3)).toMatchObject([
      { record: { call_id: "call-2" } },
      { unreadable: "a line longer than any record" },
      { record: { call_id: "call-3" } },
    ]);
  });
});

describe("verifyAuditLog: torn lines", () => {
  it("reports a torn last line but still passes", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 4);
    appendFileSync(file, (lines[3] ?? "").slice(0, 50));
    const result = await verifyAuditLog(file);
    expect(result).toMatchObject({ ok: true, records: 4 });
    expect(result.problems).toEqual([{ line: 5, warning: true, reason: "torn last line: an interrupted append" }]);
  });

  it("cuts a torn last line off before appending, so a torn line never ends up in the middle", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 3);
    appendFileSync(file, '{"v":1,"time":"2026-');
    expect((await quietLog(file).append(input(4))).ok).toBe(true);
    const after = readLines(file);
    expect(after).toHaveLength(4);
    expect(JSON.parse(after[3] ?? "")).toMatchObject({ call_id: "call-4", prev: sha256Hex(lines[2] ?? "") });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 4, problems: [] });
  });

  it("an unreadable line in the middle fails verification, even when the chain runs around it", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 3);
    const result = verifyLines([lines[0] ?? "", '{"v":1,"time":"2026-', lines[1] ?? "", lines[2] ?? ""]);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([{ line: 2, warning: false, reason: "not a JSON line" }]);
  });

  it("chains to a complete last record that only lacks its newline (a log from before heads)", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = preHeadLines(2);
    writeFileSync(file, `${lines[0] ?? ""}\n${lines[1] ?? ""}`);
    expect((await quietLog(file).append(input(3))).ok).toBe(true);
    const result = await verifyAuditLog(file);
    expect(result).toMatchObject({ ok: true, records: 4 });
    expect(result.problems).toEqual([{ line: 3, warning: true, reason: expect.stringMatching(/^audit.head was created here/) as unknown }]);
  });

  it("a terminated unreadable last line is not torn (appends never leave one)", async () => {
    const lines = await writeRecords(path.join(tempDir(), "audit.jsonl"), 2);
    expect(verifyLines([...lines, "{cut"]).problems).toEqual([{ line: 3, warning: false, reason: "not a JSON line" }]);
  });

  it("an empty log verifies with no records", () => {
    expect(verifyAuditBytes(new Uint8Array())).toEqual({ ok: true, records: 0, problems: [], lastHash: undefined });
  });
});

describe("tailAuditLog", () => {
  it("returns the last n records, oldest first, across read chunks", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    await writeRecords(file, 120);
    const tail = await tailAuditLog(file, 100);
    expect(tail).toHaveLength(100);
    expect(tail.map((entry) => ("record" in entry ? entry.record.call_id : "?"))).toEqual(Array.from({ length: 100 }, (_, i) => `call-${i + 21}`));
    expect(tail.every((entry) => "record" in entry && entry.intact)).toBe(true);
    expect(await tailAuditLog(file, 500)).toHaveLength(120);
    expect(await tailAuditLog(file, 0)).toEqual([]);
  });

  it("marks edited records and unreadable lines", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lines = await writeRecords(file, 3);
    writeFileSync(file, `${lines[0] ?? ""}\n${(lines[1] ?? "").replace('"exit_code":0', '"exit_code":7')}\n${(lines[2] ?? "").slice(0, 20)}`);
    const tail = await tailAuditLog(file, 3);
    expect(tail[0]).toMatchObject({ intact: true });
    expect(tail[1]).toMatchObject({ intact: false, record: { exit_code: 7 } });
    expect(tail[2]).toEqual({ unreadable: "not a JSON line" });
  });

  // Before, the readers opened the path as it came: a FIFO there blocked `audit tail` and the server's
  // recent-calls read (the approval page) forever, and a link was followed to whatever it named.
  it.skipIf(process.platform === "win32")("refuses a log that is a FIFO or a symbolic link, without blocking or following it", async () => {
    const real = path.join(tempDir(), "real.jsonl");
    await writeRecords(real, 3);
    const linked = path.join(tempDir(), "audit.jsonl");
    symlinkSync(real, linked);
    await expect(tailAuditLog(linked, 3)).rejects.toMatchObject({ code: "ELOOP" });
    expect(() => readRecentCalls(linked)).toThrow();
    const fifo = path.join(tempDir(), "audit.jsonl");
    execFileSync("mkfifo", [fifo]);
    await expect(tailAuditLog(fifo, 3)).rejects.toThrow("not a regular file");
    expect(() => readRecentCalls(fifo)).toThrow("not a regular file");
  });

  it("rejects a missing file", async () => {
    await expect(tailAuditLog(path.join(tempDir(), "none.jsonl"), 3)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(verifyAuditLog(path.join(tempDir(), "none.jsonl"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
