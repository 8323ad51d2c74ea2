/**
 * The trust walk (config/trusted-path.ts) splits a path into the names the
 * kernel resolves: on POSIX only `/` separates them, and a backslash is part
 * of a name (`a\b` is one entry). Splitting on it too walked `a/b` while the
 * kernel opened `a\b`: a link so named, which another user owns and may
 * repoint, was never inspected, and the closing check passed it because it
 * led to the very directory the walk had checked.
 */
import { chmodSync, lchownSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { currentTrustPolicy } from "../../../src/config/file-trust.js";
import { checkTrustedPath, configTrust, trustedOutsideRealPath } from "../../../src/config/trusted-path.js";
import { catchConfigError, tempDir, writeTree } from "./temp-tree.js";

const FOREIGN_UID = 65534;
const isRoot = process.getuid?.() === 0;

describe.skipIf(process.platform === "win32")("a backslash in a POSIX path is part of a name", () => {
  it.skipIf(!isRoot)("refuses a link named `a\\b` that another user owns, even when it leads to the trusted `a/b`", () => {
    const top = tempDir();
    mkdirSync(path.join(top, "a/b"), { recursive: true, mode: 0o755 });
    const link = path.join(top, "a\\b");
    symlinkSync(path.join(top, "a/b"), link);
    lchownSync(link, FOREIGN_UID, FOREIGN_UID);
    expect(() => trustedOutsideRealPath(currentTrustPolicy(), link, "directory")).toThrow(/symbolic link that belongs to uid 65534/u);
  });

  it("checks the file named `x\\y.yaml` below the root, not `x/y.yaml`", () => {
    const root = path.join(tempDir(), "torii");
    writeTree(root, { "x/y.yaml": "a: 1\n" });
    const file = path.join(root, "x\\y.yaml");
    writeFileSync(file, "a: 2\n");
    chmodSync(file, 0o666);
    expect(catchConfigError(() => checkTrustedPath(configTrust(root), file, "file")).message).toMatch(/writable by group or others/u);
  });
});
