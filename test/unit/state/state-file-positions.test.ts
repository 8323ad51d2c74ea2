/**
 * A damaged state file is reported with the line and column of its problem
 * (the operator finds it in a file Torii wrote and something else changed),
 * as configuration files are; before, only the file and the YAML library's or
 * the schema's words were named. The file still authorises nothing and stays
 * on disk.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LEASE_FILE, LeaseStore } from "../../../src/state/lease-store.js";
import { STATE_LOCK_TIMING } from "../../../src/state/lock.js";
import { FakeClock, hex64, tempDir } from "./helpers.js";

const B1 = hex64("b1");
const FUTURE = "2026-03-01T10:30:00.000Z";
const VALID = `version: "1"\nrevision: 4\nauthorizations:\n  - target: prod\n    binding: ${B1}\n    expires_at: ${FUTURE}\n`;

const CASES: readonly (readonly [string, string, string])[] = [
  ["a duplicate YAML key", 'version: "1"\nrevision: 4\nrevision: 9\nauthorizations: []\n', "line 3, column 1: a key appears twice"],
  ["a YAML alias", 'version: "1"\nrevision: 4\nauthorizations: &a []\nextra: *a\n', "line 4, column 8: an alias (*name): state files hold none"],
  ["a newer version", 'version: "2"\nrevision: 4\nauthorizations: []\n', 'line 1, column 10: unsupported version (this build reads "1")'],
  ["a short binding", VALID.replace(B1, "abc"), "line 5, column 14: authorizations.0.binding: "],
  ["an unknown entry field", VALID.replace("    expires_at", "    note: x\n    expires_at"), "line 6, column 11: authorizations.0: "],
  ["a list never closed (cut short)", 'version: "1"\nrevision: 4\nauthorizations: [prod\n  - x\n', "line 5, column 1: unparseable YAML"],
];

describe("a damaged lease file's error quotes none of its text (a secret pasted into it stays out of the message)", () => {
  it.for<[string, string, string]>([
    ["an unknown field named by the secret", VALID.replace("    expires_at", "    sk_live_PASTED_SECRET: x\n    expires_at"), "line 6, column "],
    ["a version that is the secret", 'version: "sk_live_PASTED_SECRET"\nrevision: 4\nauthorizations: []\n', "line 1, column 10: unsupported version"],
  ])("%s", ([, content, expected]) => {
    const dir = tempDir();
    const file = path.join(dir, LEASE_FILE);
    writeFileSync(file, content, { mode: 0o600 });
    const read = new LeaseStore(dir, { clock: new FakeClock().now, lockTiming: STATE_LOCK_TIMING }).read();
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.message).toContain(expected);
    expect(read.error.message).not.toContain("PASTED_SECRET");
  });
});

describe("a damaged lease file names where the problem is", () => {
  it.for(CASES)("%s", ([, content, expected]) => {
    const dir = tempDir();
    const file = path.join(dir, LEASE_FILE);
    writeFileSync(file, content, { mode: 0o600 });
    const store = new LeaseStore(dir, { clock: new FakeClock().now, lockTiming: STATE_LOCK_TIMING });
    const read = store.read();
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.message.slice(0, file.length + 2 + expected.length)).toBe(`${file}: ${expected}`);
    expect(store.isActive("prod", B1)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(content);
  });
});
