/**
 * Temporary directories that do not outlive their test file: `tempDirectory`
 * makes one in the run's directory (test/global-setup.ts) and remembers it;
 * test/setup-temp.ts removes every remembered one when the file's tests are
 * done. Helpers that make trees (config roots, fake bin directories) use it,
 * so no test has to remember.
 *
 * Not below the system temp directory: Torii never searches a PATH entry in
 * `/tmp`, `/var/tmp`, `/dev/shm` or `$TMPDIR` (anyone can create files there
 * first), and the fake CLIs the tests put on PATH must be found.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const made = new Set<string>();

/** The run's TMPDIR, a directory of the run's own directory (test/global-setup.ts). */
export const TEMP_SUBDIRECTORY = "tmp";

/**
 * Where test runs make their directories: in the user's cache, which only the
 * user can write, outside every shared temporary directory and every working
 * directory a test starts Torii in.
 */
export function testRunsDirectory(): string {
  const dir = path.join(os.homedir(), ".cache", "torii-test-runs");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A fresh directory named `prefix` plus a random suffix, removed when the current test file ends. */
export function tempDirectory(prefix: string): string {
  const dir = mkdtempSync(path.join(process.env.TORII_TEST_RUN_DIR ?? testRunsDirectory(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory `tempDirectory` made so far (the end of a test file). */
export function removeTempDirectories(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}
