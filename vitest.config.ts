import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that replace a module with vi.mock or vi.doMock: without isolation the
 * module cache is shared by a worker's files, so such a mock (or the vi.resetModules
 * that goes with vi.doMock) would reach (or miss) other files depending on the order
 * they ran in. These run isolated.
 */
const mockingFiles = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts") && !file.startsWith("real-cli/"))
  .map((file) => `test/${file}`)
  .filter((file) => /\bvi\.(?:mock|doMock)\(/u.test(readFileSync(file, "utf8")));

export default defineConfig({
  test: {
    pool: "forks",
    // Vitest's default leaves a core idle (cores - 1: one worker on a 2-core machine), but most
    // suites wait on child processes rather than compute: use every core.
    maxWorkers: Math.max(2, os.availableParallelism()),
    // Hang guards, not speed checks: a test's outcome must not depend on how loaded the machine is,
    // and a machine busy with other work runs a test several times slower (a test's speed is not
    // asserted anywhere; bench/ measures speed). A test that waits on events ends when they come.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    expect: { poll: { timeout: 30_000 } },
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-temp.ts"],
    // Transformed modules are kept on disk, keyed by content and configuration, so a run does not
    // transform again the ~470 modules an unchanged tree imports (collecting every file: ~28 -> ~24 s CPU).
    experimental: { fsModuleCache: true, fsModuleCachePath: "node_modules/.cache/vitest-modules" },
    projects: [
      {
        extends: true,
        // A worker runs its files one after another in one process instead of a fresh
        // process per file: importing vitest and the sources again for each of ~150 files
        // was about half of the suite's CPU. Files restore what they change (env, cwd,
        // spies) and tie clean-up to the test (onTestFinished), not to a module-level hook.
        // The browser, real-client and real-CLI suites have their own configs (`npm run test:browser`,
        // `npm run test:clients`, `npm run test:real-cli`).
        test: {
          name: "shared",
          isolate: false,
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/browser/**", "test/clients/**", "test/real-cli/**", ...mockingFiles],
        },
      },
      { extends: true, test: { name: "isolated", isolate: true, include: mockingFiles.length > 0 ? mockingFiles : ["no-file"] } },
    ],
  },
});
