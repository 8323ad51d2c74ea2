/**
 * Temporary directories that do not outlive their test file: `tempDirectory`
 * makes one under the system temp directory (the run's own, see
 * test/global-setup.ts) and remembers it; test/setup-temp.ts removes every
 * remembered one when the file's tests are done. Helpers that make trees
 * (config roots, fake bin directories) use it, so no test has to remember.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const made = new Set<string>();

/** A fresh directory named `prefix` plus a random suffix, removed when the current test file ends. */
export function tempDirectory(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every directory `tempDirectory` made so far (the end of a test file). */
export function removeTempDirectories(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.clear();
}
