/**
 * `audit verify` streams the log: it reads it a chunk at a time (never more
 * than the chunk size in one read, whatever the log's size) and checks it line
 * by line, with the same results and messages whether a record falls inside a
 * chunk or across chunk boundaries (chunks of 1 byte, odd sizes, the default).
 */
import { readFileSync, writeFileSync } from "node:fs";
import * as fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { auditHeadPath, serialiseAuditHead } from "../../../src/audit/head.js";
import { ANCHORED_GENESIS_HASH, auditFields, sealAuditLine, sha256Hex } from "../../../src/audit/record.js";
import { AUDIT_VERIFY_CHUNK_BYTES, MAX_KEPT_AUDIT_PROBLEMS, verifyAuditLogSync, type AuditVerification } from "../../../src/audit/verify.js";
import { tempDir } from "../config/temp-tree.js";

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const openSync = vi.fn(actual.openSync);
  const readSync = vi.fn(actual.readSync);
  return { ...actual, default: { ...actual, openSync, readSync }, openSync, readSync };
});

/** The lengths of the reads made on `file` while `run` runs. */
function readsOf(file: string, run: () => AuditVerification): { result: AuditVerification; reads: number[] } {
  const open = vi.mocked(fs.openSync);
  const read = vi.mocked(fs.readSync);
  open.mockClear();
  read.mockClear();
  const result = run();
  // The log's descriptor from its opening on (a number the head's closed descriptor may have had before).
  const opened = open.mock.calls.flatMap((call, index) =>
    path.resolve(String(call[0])) === path.resolve(file)
      ? [{ fd: open.mock.results[index]?.value as number, order: open.mock.invocationCallOrder[index] ?? 0 }]
      : [],
  );
  const reads = read.mock.calls
    .filter((call, index) => opened.some(({ fd, order }) => call[0] === fd && (read.mock.invocationCallOrder[index] ?? 0) > order))
    // readSync(fd, buffer, offset, length, position): the length asked for, else the whole buffer.
    .map((call) => Number((call as unknown[])[3] ?? (call[1] as Buffer).length));
  return { result, reads };
}

/** `count` records chained from the anchored genesis, each about 330 bytes. */
function records(count: number): string[] {
  const lines: string[] = [];
  let prev = ANCHORED_GENESIS_HASH;
  for (let i = 1; i <= count; i += 1) {
    const fields = auditFields({ call_id: `call-${i}`, scope: "aws/prod", event: "ran", argv_head: ["s3", "ls"], exit_code: 0, detail: "d".repeat(100) });
    const { line } = sealAuditLine(fields, new Date(Date.UTC(2026, 0, 1, 0, 0, i)), prev);
    lines.push(line);
    prev = sha256Hex(line);
  }
  return lines;
}

/** Writes `text` as the log and a head anchoring its first `anchored` lines (of `lines`). */
function writeLog(text: string, lines: readonly string[], anchored: number): string {
  const file = path.join(tempDir(), "audit.jsonl");
  writeFileSync(file, text);
  const bytes = lines.slice(0, anchored).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
  writeFileSync(auditHeadPath(file), serialiseAuditHead({ v: 1, lines: anchored, bytes, last_hash: sha256Hex(lines[anchored - 1] ?? "") }));
  return file;
}

const CHUNKS = [1, 7, 97, 4096, AUDIT_VERIFY_CHUNK_BYTES];
const LINES = records(600);

beforeEach(() => {
  vi.mocked(fs.openSync).mockClear();
});

afterEach(() => {
  vi.mocked(fs.readSync).mockClear();
});

describe("audit verify streams the log", () => {
  test("a log several chunks long is read in reads of at most one chunk, and verifies", () => {
    const text = LINES.map((line) => `${line}\n`).join("");
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * AUDIT_VERIFY_CHUNK_BYTES);
    const file = writeLog(text, LINES, LINES.length);
    const { result, reads } = readsOf(file, () => verifyAuditLogSync(file));
    expect(result).toEqual({ ok: true, records: 600, problems: [], lastHash: sha256Hex(LINES[599] ?? "") });
    expect(Math.max(...reads)).toBeLessThanOrEqual(AUDIT_VERIFY_CHUNK_BYTES);
    expect(reads.reduce((sum, length) => sum + length, 0)).toBeGreaterThanOrEqual(Buffer.byteLength(text));
  });

  test.each(CHUNKS)("records across chunk boundaries (chunks of %i bytes): the same findings at the same lines", (chunkBytes) => {
    const text = LINES.slice(0, 40)
      .map((line) => `${line}\n`)
      .join("");
    const file = writeLog(text, LINES, 40);
    const { result, reads } = readsOf(file, () => verifyAuditLogSync(file, { chunkBytes }));
    expect(result).toEqual({ ok: true, records: 40, problems: [], lastHash: sha256Hex(LINES[39] ?? "") });
    expect(Math.max(...reads)).toBeLessThanOrEqual(chunkBytes);
  });

  test.each(CHUNKS)("tampering, an over-long line, a torn end and lines past the head (chunks of %i bytes)", (chunkBytes) => {
    const lines = LINES.slice(0, 30);
    const edited = lines.map((line, index) => (index === 9 ? line.replace("call-10", "call-99") : line));
    const overlong = "x".repeat(100 * 1024);
    const body = [...edited.slice(0, 20), overlong, ...edited.slice(20, 25)];
    // Anchored through line 20 (before the over-long line); then 6 terminated lines after it, and a torn tail.
    const text = `${body.map((line) => `${line}\n`).join("")}{"v":1,"tim`;
    const file = writeLog(text, body, 20);
    const { result, reads } = readsOf(file, () => verifyAuditLogSync(file, { chunkBytes }));
    expect(result).toEqual({
      ok: false,
      records: 24,
      problems: [
        { line: 10, warning: false, reason: "hash does not match the record's content (edited)" },
        { line: 21, warning: false, reason: "a line longer than any record" },
        { line: 27, warning: true, reason: "torn last line: an interrupted append" },
        {
          line: 21,
          warning: true,
          reason:
            "6 line(s) after the end audit.head anchors: an append interrupted before the head was replaced, a server that has not moved its head yet (it does so within a second), or a writer that keeps no head",
        },
      ],
      lastHash: sha256Hex(body[25] ?? ""),
    });
    expect(Math.max(...reads)).toBeLessThanOrEqual(chunkBytes);
  });

  test.each(CHUNKS)("a head anchoring a line that was changed, and one past the log's end (chunks of %i bytes)", (chunkBytes) => {
    const lines = LINES.slice(0, 12);
    const text = lines.map((line) => `${line}\n`).join("");
    const file = writeLog(text, lines, 12);
    // The head says line 12 had another hash.
    writeFileSync(auditHeadPath(file), serialiseAuditHead({ v: 1, lines: 12, bytes: Buffer.byteLength(text), last_hash: sha256Hex("other") }));
    const edited = readsOf(file, () => verifyAuditLogSync(file, { chunkBytes }));
    expect(Math.max(...edited.reads)).toBeLessThanOrEqual(chunkBytes);
    expect(edited.result.problems).toEqual([
      {
        line: 12,
        warning: false,
        reason: "edited: line 12, the last one audit.head anchors, is not the line it recorded (changed, or lines before it removed or added)",
      },
    ]);
    writeFileSync(auditHeadPath(file), serialiseAuditHead({ v: 1, lines: 13, bytes: Buffer.byteLength(text) + 10, last_hash: sha256Hex("other") }));
    expect(readsOf(file, () => verifyAuditLogSync(file, { chunkBytes })).result.problems).toEqual([
      {
        warning: false,
        reason: `truncated: audit.head anchors 13 line(s) and ${Buffer.byteLength(text) + 10} bytes, the log has 12 line(s) and ${Buffer.byteLength(text)} bytes: records were cut off the end`,
      },
    ]);
    expect(readFileSync(file, "utf8")).toBe(text);
  });
});

describe("audit verify: an over-long unterminated last line, and many bad lines", () => {
  test.each(CHUNKS)(
    "an unterminated last line over 64 KiB that is JSON (a forged record, padded) fails: no append leaves that (chunks of %i bytes)",
    (chunkBytes) => {
      const lines = LINES.slice(0, 2);
      const forged = JSON.stringify({
        v: 1,
        time: "2026-01-01T00:00:03.000Z",
        call_id: "call-3",
        scope: "aws/prod",
        event: "ran",
        detail: "x".repeat(70_000),
        prev: sha256Hex(lines[1] ?? ""),
        hash: "0".repeat(64),
      });
      const file = writeLog(`${lines.map((line) => `${line}\n`).join("")}${forged}`, lines, 2);
      const { result } = readsOf(file, () => verifyAuditLogSync(file, { chunkBytes }));
      expect(result.ok).toBe(false);
      expect(result.problems).toEqual([{ line: 3, warning: false, reason: "a line longer than any record, unterminated: not an interrupted append" }]);
    },
  );

  test("a log of 100,000 newlines keeps only the first problems and counts the rest; it still fails", () => {
    const file = path.join(tempDir(), "audit.jsonl");
    // 1,000 times the kept problems: enough to show the list stays bounded, at a second or so of the suite (4 MiB took 40-50 s).
    const count = 100_000;
    writeFileSync(file, Buffer.alloc(count, 0x0a));
    const result = verifyAuditLogSync(file);
    expect(result.ok).toBe(false);
    // The first lines' problems, then the head's (kept whatever the count).
    expect(result.problems).toHaveLength(MAX_KEPT_AUDIT_PROBLEMS + 1);
    expect(result.problems[0]).toEqual({ line: 1, warning: false, reason: "empty line" });
    expect(result.problems[MAX_KEPT_AUDIT_PROBLEMS - 1]).toEqual({ line: MAX_KEPT_AUDIT_PROBLEMS, warning: false, reason: "empty line" });
    expect(result.problems[MAX_KEPT_AUDIT_PROBLEMS]?.reason).toMatch(/^head missing: /u);
    expect(result.omitted).toEqual({ problems: count - MAX_KEPT_AUDIT_PROBLEMS, failures: count - MAX_KEPT_AUDIT_PROBLEMS });
  });
});
