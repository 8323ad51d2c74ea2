/** `torii audit tail` and `torii audit verify` through the built CLI (`npm run build` first). */
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLog, auditLogPath } from "../../../../src/audit/audit-log.js";
import { auditHeadPath } from "../../../../src/audit/head.js";
import { GENESIS_HASH, sealAuditLine, sha256Hex } from "../../../../src/audit/record.js";
import { runCli } from "../../../support/run-cli.js";
import { tempDir } from "../../config/temp-tree.js";

async function rootWithRecords(count: number): Promise<{ root: string; file: string; lines: string[] }> {
  const root = path.join(tempDir(), "root");
  mkdirSync(root);
  const file = auditLogPath(root);
  let now = Date.parse("2026-03-01T10:00:00.000Z");
  const log = new AuditLog(file, () => new Date((now += 1500)));
  for (let i = 1; i <= count; i += 1) {
    await log.append({
      call_id: `call-${i}`,
      scope: i % 2 === 0 ? "kubectl/dev" : "aws",
      event: i % 2 === 0 ? "allowed-by-rules" : "ran",
      argv_head: ["get", "pods", "--token=SECRET"],
      rule: "get pods",
      source: "rules",
      exit_code: 0,
      duration_ms: 42,
    });
  }
  return { root, file, lines: readFileSync(file, "utf8").split("\n").slice(0, -1) };
}

function audit(root: string, ...args: string[]) {
  return runCli(["audit", ...args], { TORII_CONFIG_DIR: root });
}

describe("torii audit verify", () => {
  it.skipIf(process.platform === "win32")("exits 1, reading nothing through it, for a log or head that is a symbolic link (dangling or not)", async () => {
    const { root, file } = await rootWithRecords(3);
    const elsewhere = path.join(tempDir(), "moved.jsonl");
    renameSync(file, elsewhere);
    symlinkSync(elsewhere, file);
    const linked = await audit(root, "verify");
    expect(linked.status).toBe(1);
    expect(linked.stdout).toMatch(/^audit\.jsonl is a symbolic link \(replace it with the file it points to\); the server cannot append to it/m);
    expect(linked.stdout).not.toContain("chain intact");
    rmSync(elsewhere);
    const dangling = await audit(root, "verify", "--json");
    expect(dangling.status).toBe(1);
    expect(JSON.parse(dangling.stdout)).toMatchObject({
      ok: false,
      problems: [{ reason: expect.stringMatching(/^audit\.jsonl is a symbolic link/) as unknown }],
    });
  });

  it.skipIf(process.platform === "win32")("exits 1 when audit.head is a symbolic link", async () => {
    const { root, file } = await rootWithRecords(2);
    const head = auditHeadPath(file);
    const elsewhere = path.join(tempDir(), "moved.head");
    renameSync(head, elsewhere);
    symlinkSync(elsewhere, head);
    const result = await audit(root, "verify");
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^audit\.head is a symbolic link/m);
  });

  it("exits 0 and prints the record count and last hash for an intact chain", async () => {
    const { root, file, lines } = await rootWithRecords(5);
    const result = await audit(root, "verify");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${file}: 5 record(s), chain intact\nlast hash: ${sha256Hex(lines[4] ?? "")}\n`);
  });

  it("exits 1 and names the line of an edited record", async () => {
    const { root, file, lines } = await rootWithRecords(5);
    lines[2] = (lines[2] ?? "").replace('"exit_code":0', '"exit_code":2');
    writeFileSync(file, `${lines.join("\n")}\n`);
    const result = await audit(root, "verify");
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^line 3: hash does not match the record's content \(edited\)$/m);
    expect(result.stdout).toMatch(/1 problem\(s\) in 4 intact record\(s\)/);
  });

  it("exits 1 for a deleted record", async () => {
    const { root, file, lines } = await rootWithRecords(5);
    lines.splice(1, 1);
    writeFileSync(file, `${lines.join("\n")}\n`);
    const result = await audit(root, "verify");
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^line 2: prev does not match/m);
  });

  it("exits 1 when records were cut off the end, saying truncated", async () => {
    const { root, file, lines } = await rootWithRecords(5);
    writeFileSync(file, `${lines.slice(0, 3).join("\n")}\n`);
    const result = await audit(root, "verify");
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^truncated: audit.head anchors 5 line\(s\)/m);
  });

  it("exits 1 when the head is missing beside a log with records", async () => {
    const { root, file } = await rootWithRecords(2);
    rmSync(auditHeadPath(file));
    const result = await audit(root, "verify");
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^head missing: /m);
  });

  it("exits 1 for an unreadable line in the middle: only the last line may be torn", async () => {
    const { root, file, lines } = await rootWithRecords(3);
    writeFileSync(file, `${lines[0] ?? ""}\n{"v":1,"ti\n${lines[1] ?? ""}\n${lines[2] ?? ""}\n`);
    const result = await audit(root, "verify");
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^line 2: not a JSON line$/m);
  });

  it("lists the first 100 problems of a log of many bad lines and says how many more there are", async () => {
    const { root, file, lines } = await rootWithRecords(1);
    writeFileSync(file, `${lines[0] ?? ""}\n${"\n".repeat(250)}`);
    const result = await audit(root, "verify");
    expect(result.status).toBe(1);
    expect(result.stdout.match(/^line \d+: empty line$/gm)).toHaveLength(100);
    expect(result.stdout).toMatch(/^line 101: empty line$/m);
    expect(result.stdout).toMatch(/^\.\.\. and 150 more problem\(s\) \(150 failing\), not listed: only the first 100 are kept$/m);
    expect(result.stdout).toMatch(/: 250 problem\(s\) in 1 intact record\(s\)$/m);
  });

  it("exits 0 with a warning for a torn last line", async () => {
    const { root, file } = await rootWithRecords(3);
    appendFileSync(file, '{"v":1,"ti');
    const result = await audit(root, "verify");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^line 4: warning: torn last line/m);
    expect(result.stdout).toMatch(/3 record\(s\), chain intact/);
  });

  it("exits 3 when there is no log; a directory in its place is no regular file (exit 1)", async () => {
    const root = tempDir();
    const missing = await audit(root, "verify");
    expect(missing.status).toBe(3);
    expect(missing.stderr).toBe(`torii: no audit log at ${auditLogPath(root)}\n`);
    mkdirSync(auditLogPath(root));
    const directory = await audit(root, "verify");
    expect(directory.status).toBe(1);
    expect(directory.stdout).toMatch(/^audit\.jsonl is not a regular file \(move it aside\)/m);
  });
});

describe("torii audit tail", () => {
  it("prints the last 20 records by default, one per line, without the third argv token", async () => {
    const { root } = await rootWithRecords(25);
    const result = await audit(root, "tail");
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(20);
    expect(lines[19]).toBe('2026-03-01T10:00:37.500Z  aws  ran  exit=0  42ms  argv=["get" "pods"]  source=rules  rule="get pods"  call=call-25');
    expect(result.stdout).not.toContain("SECRET");
  });

  it("-n limits the count and --json prints the stored records", async () => {
    const { root, lines } = await rootWithRecords(4);
    const result = await audit(root, "tail", "-n", "2", "--json");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${lines[2] ?? ""}\n${lines[3] ?? ""}\n`);
  });

  it("sanitises what it prints, even from a forged record with a valid hash", async () => {
    const { root, file, lines } = await rootWithRecords(1);
    const forged = sealAuditLine(
      { call_id: "x", scope: "aws", event: "ran", detail: "\u001b]0;pwned\u0007\u001b[2J" },
      new Date("2026-03-01T11:00:00.000Z"),
      sha256Hex(lines[0] ?? GENESIS_HASH),
    ).line;
    appendFileSync(file, `${forged}\n`);
    const result = await audit(root, "tail");
    expect(result.status).toBe(0);
    const controls = Array.from(result.stdout).filter((char) => char !== "\n" && (char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f));
    expect(controls).toEqual([]);
    expect(result.stdout).toContain('detail="_]0;pwned__[2J"');
  });

  // JSON.stringify leaves C1 controls (U+009B is a CSI), DEL, U+2028 and bidi overrides raw: before,
  // --json printed a forged or edited record's to the terminal as they were.
  it("--json escapes what could act on a terminal, from a forged or an edited record, keeping the same JSON value", async () => {
    const { root, file, lines } = await rootWithRecords(1);
    // auditFields would sanitise these; a forger seals the fields as they are.
    const nasty = "a\u202eb\u009b2Jc\u007fd\u2028e\u2066f";
    const forged = sealAuditLine(
      { call_id: "x", scope: "aws", event: "ran", detail: nasty },
      new Date("2026-03-01T11:00:00.000Z"),
      sha256Hex(lines[0] ?? ""),
    ).line;
    appendFileSync(file, `${forged}\n${forged.replace('"call_id":"x"', '"call_id":"y"')}\n`);
    const result = await audit(root, "tail", "-n", "2", "--json");
    expect(result.status).toBe(0);
    expect(Array.from(result.stdout).filter((char) => /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u.test(char))).toEqual([]);
    const printed = result.stdout
      .split("\n")
      .slice(0, -1)
      .map((line) => JSON.parse(line) as { detail: string; intact?: boolean });
    expect(printed.map((record) => [record.detail, record.intact])).toEqual([
      [nasty, undefined],
      [nasty, false],
    ]);
  });

  it("marks edited records and unreadable lines", async () => {
    const { root, file, lines } = await rootWithRecords(2);
    writeFileSync(file, `${(lines[0] ?? "").replace('"exit_code":0', '"exit_code":9')}\nnot json\n${lines[1] ?? ""}\n`);
    const text = (await audit(root, "tail")).stdout.split("\n");
    expect(text[0]).toMatch(/^\[edited\] {2}.*exit=9/);
    expect(text[1]).toBe("(not a record: not a JSON line)");
    const json = (await audit(root, "tail", "--json")).stdout.split("\n");
    expect(JSON.parse(json[0] ?? "")).toMatchObject({ intact: false, exit_code: 9 });
    expect(JSON.parse(json[1] ?? "")).toEqual({ unreadable: "not a JSON line" });
  });

  it.each([["0"], ["-1"], ["abc"], ["1.5"], ["100001"]])("refuses -n %s with exit 3", async (count) => {
    const { root } = await rootWithRecords(1);
    const result = await audit(root, "tail", "-n", count);
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/-n must be a whole number from 1 to 100000/);
  });

  it("exits 3 when there is no log", async () => {
    const result = await audit(tempDir(), "tail");
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/no audit log at/);
  });
});
