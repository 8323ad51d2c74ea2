/**
 * The log's anchor (audit.head): records cut off the end, a lost head, a head
 * that no longer matches, and what a writer does about each before it appends.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, lstatSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/audit/audit-log.js";
import { auditHeadPath } from "../../../src/audit/head.js";
import { auditFields, GENESIS_HASH, sealAuditLine, sha256Hex, type AuditInput } from "../../../src/audit/record.js";
import { verifyAuditLog } from "../../../src/audit/verify.js";
import { tempDir } from "../config/temp-tree.js";

const quiet = (file: string): AuditLog => new AuditLog(file, () => new Date(), { report: () => undefined });

function input(index: number): AuditInput {
  return { call_id: `call-${index}`, scope: "kube", event: "ran", argv_head: ["get", "pods"], exit_code: 0 };
}

async function logWith(count: number): Promise<{ file: string; lines: string[] }> {
  const file = path.join(tempDir(), "audit.jsonl");
  const log = quiet(file);
  for (let i = 1; i <= count; i += 1) expect((await log.append(input(i))).ok).toBe(true);
  return { file, lines: readFileSync(file, "utf8").split("\n").slice(0, -1) };
}

function byteLength(lines: readonly string[]): number {
  return Buffer.byteLength(lines.map((line) => `${line}\n`).join(""));
}

function events(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .slice(0, -1)
    .map((line) => (JSON.parse(line) as { event: string }).event);
}

describe("the head an append leaves", () => {
  it("holds the log's line count, byte length and last line's digest", async () => {
    const { file, lines } = await logWith(4);
    expect(JSON.parse(readFileSync(auditHeadPath(file), "utf8"))).toEqual({ v: 1, lines: 4, bytes: byteLength(lines), last_hash: sha256Hex(lines[3] ?? "") });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 4, problems: [] });
  });

  it("a batch is one append: its records in order, one head for all of them", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const result = await quiet(file).appendBatch([input(1), input(2), input(3)]);
    expect(result.ok).toBe(true);
    const lines = readFileSync(file, "utf8").split("\n").slice(0, -1);
    expect(lines.map((line) => (JSON.parse(line) as { call_id: string }).call_id)).toEqual(["call-1", "call-2", "call-3"]);
    expect(JSON.parse(readFileSync(auditHeadPath(file), "utf8"))).toMatchObject({ lines: 3, last_hash: sha256Hex(lines[2] ?? "") });
    expect(result.ok && result.hash).toBe((JSON.parse(lines[2] ?? "") as { hash: string }).hash);
    expect((await quiet(file).appendBatch([])).ok).toBe(false);
  });

  it("onDurable fires once the records are written and fsynced, before the head is replaced", async () => {
    const { file } = await logWith(1);
    let seen: { log: number; head: number } | undefined;
    const onDurable = (): void => {
      seen = {
        log: readFileSync(file, "utf8").split("\n").length - 1,
        head: (JSON.parse(readFileSync(auditHeadPath(file), "utf8")) as { lines: number }).lines,
      };
    };
    expect((await quiet(file).appendBatch([input(2), input(3)], { onDurable })).ok).toBe(true);
    expect(seen).toEqual({ log: 3, head: 1 });
  });
});

describe("appends that defer their fsync, and a writer that remembers where it left the log", () => {
  it("a deferred append is in the file at once, and the next synced append anchors it too", async () => {
    const { file } = await logWith(1);
    const log = quiet(file);
    let writtenLines = 0;
    const deferred = await log.appendBatch([input(2)], { deferSync: true, onWritten: () => (writtenLines = events(file).length) });
    expect(deferred.ok).toBe(true);
    expect(writtenLines).toBe(2);
    expect((JSON.parse(readFileSync(auditHeadPath(file), "utf8")) as { lines: number }).lines).toBe(1);
    // A head that lags is a crash's: readers accept it with a warning.
    expect((await verifyAuditLog(file)).ok).toBe(true);
    expect((await log.append(input(3))).ok).toBe(true);
    const lines = readFileSync(file, "utf8").split("\n").slice(0, -1);
    expect(JSON.parse(readFileSync(auditHeadPath(file), "utf8"))).toMatchObject({ lines: 3, bytes: byteLength(lines), last_hash: sha256Hex(lines[2] ?? "") });
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, problems: [] });
  });

  it("a new log's first append, deferred or not, leaves a head behind it, so another writer finds no head missing", async () => {
    for (const deferSync of [true, false]) {
      const file = path.join(tempDir(), "audit.jsonl");
      // The moment after the first writer's append returns is the moment a second process may append.
      expect((await quiet(file).appendBatch([input(1)], { deferSync })).ok).toBe(true);
      expect(JSON.parse(readFileSync(auditHeadPath(file), "utf8"))).toMatchObject({ lines: 1 });
      expect((await quiet(file).append(input(2))).ok).toBe(true);
      expect(events(file)).toEqual(["ran", "ran"]);
      expect(await verifyAuditLog(file)).toMatchObject({ ok: true, problems: [] });
    }
  });

  it("the same writer notices a cut made behind its back, and a same-size edit, instead of chaining to what it remembers", async () => {
    const { file, lines } = await logWith(4);
    const log = quiet(file);
    expect((await log.append(input(5))).ok).toBe(true);
    truncateSync(file, byteLength(lines.slice(0, 3)));
    expect((await log.append(input(6))).ok).toBe(true);
    expect(events(file).slice(3)).toEqual(["audit-head-mismatch", "ran"]);

    const { file: other } = await logWith(2);
    const writer = quiet(other);
    expect((await writer.append(input(3))).ok).toBe(true);
    const text = readFileSync(other, "utf8");
    writeFileSync(other, text.replace('"call-3"', '"call-9"'));
    expect((await writer.append(input(4))).ok).toBe(true);
    expect(events(other).slice(3)).toEqual(["audit-head-mismatch", "ran"]);
  });
});

describe("verify against the head", () => {
  it("records cut off the end: fails, saying truncated", async () => {
    const { file, lines } = await logWith(6);
    truncateSync(file, byteLength(lines.slice(0, 4)));
    const result = await verifyAuditLog(file);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([{ warning: false, reason: expect.stringMatching(/^truncated: audit.head anchors 6 line\(s\)/) as unknown }]);
  });

  it("the last record rewritten with a valid hash and prev: fails at that line", async () => {
    const { file, lines } = await logWith(3);
    const last = JSON.parse(lines[2] ?? "") as AuditInput & { prev: string; time: string };
    lines[2] = sealAuditLine(auditFields({ ...last, exit_code: 0, detail: "forged" }), new Date(last.time), last.prev).line;
    writeFileSync(file, lines.map((line) => `${line}\n`).join(""));
    const result = await verifyAuditLog(file);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([{ line: 3, warning: false, reason: expect.stringMatching(/^edited: line 3/) as unknown }]);
  });

  it("no head beside a log with lines: fails, saying head missing", async () => {
    const { file } = await logWith(2);
    rmSync(auditHeadPath(file));
    expect(await verifyAuditLog(file)).toMatchObject({ ok: false, problems: [{ warning: false, reason: expect.stringMatching(/^head missing/) as unknown }] });
  });

  it("an unreadable head: fails", async () => {
    const { file } = await logWith(2);
    writeFileSync(auditHeadPath(file), "{not json");
    expect(await verifyAuditLog(file)).toMatchObject({
      ok: false,
      problems: [{ warning: false, reason: expect.stringMatching(/^head unreadable/) as unknown }],
    });
  });

  it("lines after the anchored end (a crash before the head was replaced): a warning; the next append carries on", async () => {
    const { file } = await logWith(3);
    copyFileSync(auditHeadPath(file), `${file}.old-head`);
    await quiet(file).append(input(4));
    copyFileSync(`${file}.old-head`, auditHeadPath(file));
    const result = await verifyAuditLog(file);
    expect(result).toMatchObject({ ok: true, records: 4 });
    expect(result.problems).toEqual([{ line: 4, warning: true, reason: expect.stringMatching(/^1 line\(s\) after the end/) as unknown }]);
    await quiet(file).append(input(5));
    expect(await verifyAuditLog(file)).toMatchObject({ ok: true, records: 5, problems: [] });
  });
});

describe("what a writer does with a head that does not match", () => {
  it("after a cut, the next append records the mismatch first, and verify keeps failing at it", async () => {
    const { file, lines } = await logWith(6);
    truncateSync(file, byteLength(lines.slice(0, 4)));
    expect((await quiet(file).append(input(7))).ok).toBe(true);
    expect(events(file).slice(4)).toEqual(["audit-head-mismatch", "ran"]);
    const result = await verifyAuditLog(file);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      { line: 5, warning: false, reason: expect.stringMatching(/not matching audit.head here: the log had .* records were cut off the end/) as unknown },
    ]);
    // Another append does not make it go away.
    await quiet(file).append(input(8));
    expect((await verifyAuditLog(file)).ok).toBe(false);
  });

  it("a head deleted from a log that had one from its start: the re-anchoring fails verification", async () => {
    const { file } = await logWith(3);
    rmSync(auditHeadPath(file));
    await quiet(file).append(input(4));
    expect(events(file)).toEqual(["ran", "ran", "ran", "audit-anchored", "ran"]);
    expect(await verifyAuditLog(file)).toMatchObject({
      ok: false,
      problems: [{ line: 4, warning: false, reason: expect.stringMatching(/missing here although the log was already anchored/) as unknown }],
    });
  });

  it("a log from before heads: verify fails until an append anchors it once (a warning); a second loss fails", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    let prev = GENESIS_HASH;
    const old = [1, 2].map((i) => {
      const { line } = sealAuditLine(auditFields(input(i)), new Date(Date.UTC(2025, 0, i)), prev);
      prev = sha256Hex(line);
      return `${line}\n`;
    });
    writeFileSync(file, old.join(""));
    expect(await verifyAuditLog(file)).toMatchObject({ ok: false, problems: [{ reason: expect.stringMatching(/^head missing/) as unknown }] });

    await quiet(file).append(input(3));
    const adopted = await verifyAuditLog(file);
    expect(adopted).toMatchObject({ ok: true, records: 4 });
    expect(adopted.problems).toEqual([{ line: 3, warning: true, reason: expect.stringMatching(/created here for a log written before heads/) as unknown }]);

    rmSync(auditHeadPath(file));
    await quiet(file).append(input(4));
    const lost = await verifyAuditLog(file);
    expect(lost.ok).toBe(false);
    expect(lost.problems.filter((problem) => !problem.warning)).toEqual([
      { line: 5, warning: false, reason: expect.stringMatching(/already anchored/) as unknown },
    ]);
  });

  it("an unreadable head: the next append records the mismatch", async () => {
    const { file } = await logWith(2);
    writeFileSync(auditHeadPath(file), "garbage");
    await quiet(file).append(input(3));
    expect(events(file)).toEqual(["ran", "ran", "audit-head-mismatch", "ran"]);
    expect((await verifyAuditLog(file)).ok).toBe(false);
  });

  // The writer reads the head under the log's lock: before, it followed a link and read to the end of
  // whatever was there, so a head linked to /dev/zero filled its memory and a FIFO blocked it (and every
  // writer waiting for the lock) forever; a link to a valid head was trusted although verify refuses it.
  it.skipIf(process.platform === "win32").each([
    [
      "a symbolic link (to a copy of the valid head)",
      (head: string) => {
        copyFileSync(head, `${head}.elsewhere`);
        rmSync(head);
        symlinkSync(`${head}.elsewhere`, head);
      },
    ],
    [
      "a FIFO",
      (head: string) => {
        rmSync(head);
        execFileSync("mkfifo", [head]);
      },
    ],
  ])("a head that is %s: the append is not blocked, records the mismatch and puts a real head in place", async (_what, plant) => {
    const { file } = await logWith(2);
    plant(auditHeadPath(file));
    expect((await quiet(file).append(input(3))).ok).toBe(true);
    expect(events(file)).toEqual(["ran", "ran", "audit-head-mismatch", "ran"]);
    expect(lstatSync(auditHeadPath(file)).isFile()).toBe(true);
    expect((JSON.parse(readFileSync(auditHeadPath(file), "utf8")) as { lines: number }).lines).toBe(4);
    expect((await verifyAuditLog(file)).ok).toBe(false);
  });
});
