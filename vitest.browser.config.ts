import { defineConfig } from "vitest/config";

// The browser suite (`npm run test:browser`): the approval page in real Chromium
// (Debian's /usr/bin/chromium through playwright-core). Kept apart from `npm test`
// so the main suite does not need a browser; .ci/run runs both.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 1,
    // Hang guards, as in vitest.config.ts: Chromium on a machine busy with other work takes several times longer.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-temp.ts"],
  },
});
