/**
 * The lock is this writer's own token while it holds nothing: a `link` that
 * took effect but reported EEXIST (NFS retransmits a LINK whose reply was
 * lost, and the retry finds the name taken), or any other path that leaves
 * the token linked. Every later attempt of this writer refreshes the token's
 * mtime before it links (lock-token.ts), so such a lock never aged out: every
 * writer, this one included, was locked out for good. A created lock file
 * left the same way aged out in the stale period. `link` is mocked here to
 * lose its reply once.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { withSyncLockFile } from "../../../src/state/lock-file.js";
import { tokenPrefix } from "../../../src/state/lock-token.js";
import { tempDir, TEST_LOCK_TIMING } from "./helpers.js";

const next = vi.hoisted(() => ({ loseReply: false }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const linkSync: typeof fs.linkSync = (existing, target) => {
    fs.linkSync(existing, target);
    if (!next.loseReply) return;
    next.loseReply = false;
    throw Object.assign(new Error(`EEXIST: file already exists, link '${String(existing)}' -> '${String(target)}'`), { code: "EEXIST" });
  };
  return { ...fs, linkSync, default: { ...fs, linkSync } };
});

describe("a lock that is this writer's own token, left linked", () => {
  it("ages out like a crashed holder's and is taken over: the writer's refreshes do not keep it fresh", async () => {
    const file = path.join(tempDir(), "audit.jsonl");
    const lockPath = `${file}.lock`;
    next.loseReply = true;
    // Stale after 2 s (TEST_LOCK_TIMING); kept fresh, it would outlast the 10 s wait.
    expect(await withSyncLockFile(file, { ...TEST_LOCK_TIMING, waitMs: 10_000 }, () => "ran")).toBe("ran");
    expect(existsSync(lockPath)).toBe(false);
    // The token left linked was dropped; the writer made a new one.
    expect(readdirSync(path.dirname(file)).filter((name) => name.startsWith(tokenPrefix(lockPath)))).toHaveLength(1);
  }, 20_000);
});
