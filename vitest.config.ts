import os from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real-client suite has its own config (vitest.clients.config.ts, `npm run test:clients`).
    exclude: [...configDefaults.exclude, "test/clients/**"],
    pool: "forks",
    // Vitest's default leaves a core idle (cores - 1: one worker on a 2-core machine), but most
    // suites wait on child processes rather than compute: use every core.
    maxWorkers: Math.max(2, os.availableParallelism()),
    testTimeout: 20_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
