import os from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser and real-client suites have their own configs (`npm run test:browser`, `npm run test:clients`).
    exclude: [...configDefaults.exclude, "test/browser/**", "test/clients/**"],
    pool: "forks",
    // Vitest's default leaves a core idle (cores - 1: one worker on a 2-core machine), but most
    // suites wait on child processes rather than compute: use every core.
    maxWorkers: Math.max(2, os.availableParallelism()),
    // A worker runs its files one after another in one process instead of a fresh
    // process per file: importing vitest and the sources again for each of ~150 files
    // was about half of the suite's CPU. Files restore what they change (env stubs,
    // mocks, cwd); vi.mock stays per file.
    isolate: false,
    testTimeout: 20_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
