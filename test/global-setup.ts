/**
 * Vitest global setup. End-to-end suites spawn `dist/`, which `npm test` builds
 * before vitest starts; fail early with a clear message when it is missing.
 *
 * The run gets a directory of its own, outside the shared temporary
 * directories (Torii never searches PATH entries below `/tmp` or `$TMPDIR`,
 * and the tests' fake CLIs must be found): the test helpers make their trees
 * in it (test/support/temp-dirs.ts), and its `tmp/` is TMPDIR for the workers
 * and every process they start, so os.tmpdir() is the run's as well. At the
 * end whatever a test left there is named by prefix and fails the run (a test
 * removes what it creates), and the directory goes, so a failing or interrupted
 * run does not fill the disk either.
 *
 * TORII_TEST_PYTHON becomes the interpreter itself, resolved once for the run
 * (test/support/test-python.ts): not a version manager's shim for every test.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { TEMP_SUBDIRECTORY, testRunsDirectory } from "./support/temp-dirs.js";
import { interpreterOf, testPython } from "./support/test-python.js";

/** "torii-test-Ab12Cd" -> "torii-test-": mkdtemp's six random characters are not part of the prefix. */
function prefixOf(name: string): string {
  return /^(.*[-_ ])[A-Za-z0-9]{6}$/u.exec(name)?.[1] ?? name;
}

/**
 * Chromium's own per-process entries (`.org.chromium.Chromium.XXXXXX`): the browser removes them when it
 * exits, and leaves them when a loaded machine makes playwright kill it at close. Not a test's leak; the
 * run directory still removes them.
 */
const BROWSER_OWN = /^\.org\.chromium\.Chromium\./u;

/** The entries left in `dir` but `expected`, counted by prefix ("torii-test- (3), torii-bin- (1)"), or "" when there are none. */
export function leftovers(dir: string, expected?: string): string {
  const counts = new Map<string, number>();
  for (const name of readdirSync(dir).filter((entry) => !BROWSER_OWN.test(entry) && entry !== expected))
    counts.set(prefixOf(name), (counts.get(prefixOf(name)) ?? 0) + 1);
  return [...counts].map(([prefix, count]) => `${prefix}* (${count})`).join(", ");
}

export default function setup(): () => void {
  if (!existsSync(new URL("../dist/cli.js", import.meta.url))) {
    throw new Error("dist/cli.js is missing: run `npm run build` (npm test does it) before vitest.");
  }
  // Once per run: each vitest project runs its global setup, and the second finds the first's directory.
  if (process.env.TORII_TEST_RUN_DIR !== undefined) return () => undefined;
  const runDir = mkdtempSync(path.join(testRunsDirectory(), "torii-run-"));
  const tmp = path.join(runDir, TEMP_SUBDIRECTORY);
  mkdirSync(tmp);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  process.env.TORII_TEST_RUN_DIR = runDir;
  const previousPython = process.env.TORII_TEST_PYTHON;
  // No python at all: left unset, and the tests that need one skip or fail as they did.
  const python = interpreterOf(testPython());
  if (python !== undefined) process.env.TORII_TEST_PYTHON = python;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (previousPython === undefined) delete process.env.TORII_TEST_PYTHON;
    else process.env.TORII_TEST_PYTHON = previousPython;
    delete process.env.TORII_TEST_RUN_DIR;
    const left = [leftovers(runDir, TEMP_SUBDIRECTORY), leftovers(tmp)].filter((text) => text !== "").join(", ");
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
    if (left === "") return;
    // Vitest only logs an error thrown here; the exit status has to be set as well.
    process.exitCode = 1;
    throw new Error(`tests left temporary entries behind (removed now; remove them in the test that made them): ${left}`);
  };
}
