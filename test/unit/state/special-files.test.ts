/**
 * threats.md §3: a state path that is neither a file nor missing. A named pipe
 * (FIFO) where the lease, grants or a pending approval file should be must be
 * refused at once as an unsafe path, like a symlink or a directory: opening it
 * for reading must not wait for a writer, which would freeze the whole server
 * (every state read is synchronous) instead of telling the operator.
 *
 * The read runs in a child process over the built modules (dist/state), so
 * the old behaviour, an open that never returns, fails this test by its
 * timeout without blocking the test runner; the child is killed after.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { GRANTS_FILE } from "../../../src/state/grant-store.js";
import { LEASE_FILE } from "../../../src/state/lease-store.js";
import { assertBuiltStateIsFresh, runChild, type ChildRun } from "./child-process.js";
import { tempDir } from "./helpers.js";

const children: ChildRun[] = [];

beforeAll(() => {
  assertBuiltStateIsFresh();
});

afterEach(() => {
  for (const run of children.splice(0)) run.child.kill("SIGKILL");
});

/** Reads `file` with the built store `kind` in a child; resolves with what it printed: the error kind, or "ok"/"missing". */
function readInChild(kind: "lease" | "grants", dir: string): Promise<string> {
  const script = `
    const [kind, dir] = process.argv.slice(1);
    const store = kind === "lease"
      ? new (await import(process.env.STATE_DIST + "/lease-store.js")).LeaseStore(dir)
      : new (await import(process.env.STATE_DIST + "/grant-store.js")).GrantStore(dir + "/grants");
    const read = kind === "lease" ? store.read() : store.list();
    console.log("read " + (read.ok ? "ok" : read.error.kind));
  `;
  const run = runChild(script, [kind, dir]);
  children.push(run);
  return run.line("read ");
}

describe.skipIf(process.platform === "win32")("a named pipe at a state path", () => {
  test.each([
    ["lease", LEASE_FILE],
    ["grants", GRANTS_FILE],
  ] as const)("the %s file as a FIFO is refused at once as an unsafe path, without waiting for a writer", async (kind, name) => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o700);
    execFileSync("mkfifo", ["-m", "600", path.join(dir, name)]);
    expect(await readInChild(kind, dir)).toBe("read unsafe-path");
  });
});
