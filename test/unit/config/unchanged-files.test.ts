/**
 * Trusted reads that skip reading an unchanged file (config/unchanged-files.ts),
 * on real files: every read still applies the trust rule, any change of the
 * file's identity is read again, and a file changed within RACY_MARGIN_NS of the
 * read is never kept (two writes in one timestamp tick share their times).
 */
import { chmodSync, lstatSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RACY_MARGIN_NS, UnchangedFiles } from "../../../src/config/unchanged-files.js";
import { configTrust, type ConfigTrust } from "../../../src/config/trusted-path.js";
import { catchConfigError, tempDir, writeTree } from "./temp-tree.js";

function rulesTree(): { root: string; file: string } {
  const root = path.join(tempDir(), "torii");
  writeTree(root, { "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n' });
  chmodSync(root, 0o700);
  return { root, file: path.join(root, "providers/kube/rules.yaml") };
}

const ctimeOf = (file: string): bigint => lstatSync(file, { bigint: true }).ctimeNs;

/** A clock that reads well after the file's current last change, as on a server that has run for a while. */
function laterThan(file: string): () => bigint {
  const now = ctimeOf(file) + RACY_MARGIN_NS + 1n;
  return () => now;
}

/** A rules file read once by a server that has run for a while, so its text is kept. */
function keptRules(): { file: string; files: UnchangedFiles; trust: ConfigTrust } {
  const { root, file } = rulesTree();
  const files = new UnchangedFiles(laterThan(file));
  const trust = configTrust(root);
  expect(files.read(trust, file)).toBe('version: "1"\naccept: [get]\n');
  return { file, files, trust };
}

/** Rewrites `file` in place with `text` until its ctime moves on (the next timestamp tick): an in-place edit of the same size. */
function rewriteInPlace(file: string, text: string): void {
  const before = ctimeOf(file);
  do writeFileSync(file, text);
  while (ctimeOf(file) === before);
}

describe.skipIf(process.platform === "win32")("UnchangedFiles", () => {
  it("keeps an old file's text, and reads again after an in-place edit of the same size", () => {
    const { file, files, trust } = keptRules();
    expect(files.keeps(file)).toBe(true);
    expect(files.read(trust, file)).toBe('version: "1"\naccept: [get]\n');
    rewriteInPlace(file, 'version: "1"\ndeny:   [get]\n');
    expect(files.read(trust, file)).toBe('version: "1"\ndeny:   [get]\n');
  });

  it("reads again when the file is replaced by a rename (a new inode), or removed", () => {
    const { file, files, trust } = keptRules();
    writeFileSync(`${file}.new`, 'version: "1"\naccept: [put]\n', { mode: 0o644 });
    renameSync(`${file}.new`, file);
    expect(files.read(trust, file)).toBe('version: "1"\naccept: [put]\n');
    rmSync(file);
    expect(files.read(trust, file)).toBeUndefined();
    expect(files.keeps(file)).toBe(false);
  });

  it("never keeps a file changed within the racy margin of the read, so a same-tick edit is read", () => {
    const { root, file } = rulesTree();
    const files = new UnchangedFiles(() => ctimeOf(file) + RACY_MARGIN_NS - 1n);
    const trust = configTrust(root);
    expect(files.read(trust, file)).toBe('version: "1"\naccept: [get]\n');
    expect(files.keeps(file)).toBe(false);
    // Likely within the same tick as the first write: same size, same times; only the margin makes this read see it.
    writeFileSync(file, 'version: "1"\ndeny:   [get]\n');
    expect(files.read(trust, file)).toBe('version: "1"\ndeny:   [get]\n');
  });

  it("applies the trust rule at every read of a kept file: its directory or itself made writable by others", () => {
    const { file, files, trust } = keptRules();
    const dir = path.dirname(file);
    chmodSync(dir, 0o757);
    expect(catchConfigError(() => files.read(trust, file)).file).toBe(dir);
    chmodSync(dir, 0o755);
    chmodSync(file, 0o646);
    expect(catchConfigError(() => files.read(trust, file)).message).toContain(`fix: chmod go-w ${file}`);
  });
});
