import os from "node:os";
import { defineConfig } from "vitest/config";

// The real-CLI suite (`npm run test:real-cli`): Torii's tables and decisions against the
// installed AWS CLI and Google Cloud SDK (Python programs, about a second of CPU per start)
// and the Python libraries they read with (argparse, urllib, botocore's INI reader). Kept
// apart from `npm test` for its cost: a quarter of the main suite's CPU for 4% of its files.
// `npm test` keeps the cheap real programs (kubectl, the real `aws` behind the STS check);
// .ci/run runs this suite right after it.
export default defineConfig({
  test: {
    include: ["test/real-cli/**/*.test.ts"],
    pool: "forks",
    // As in vitest.config.ts: the files wait on Python processes more than they compute.
    maxWorkers: Math.max(2, os.availableParallelism()),
    // A worker runs its files in one process (none replaces a module with vi.mock).
    isolate: false,
    // Hang guards, as in vitest.config.ts.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    expect: { poll: { timeout: 30_000 } },
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-temp.ts"],
  },
});
