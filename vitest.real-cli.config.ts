import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { defineConfig } from "vitest/config";

const mocking = readdirSync("test/real-cli", { recursive: true, encoding: "utf8" }).filter(
  (file) => file.endsWith(".test.ts") && /\bvi\.(?:mock|doMock)\(/u.test(readFileSync(`test/real-cli/${file}`, "utf8")),
);
if (mocking.length > 0) throw new Error(`test/real-cli runs without isolation; these files mock modules: ${mocking.join(", ")}`);

// The real-CLI suite (`npm run test:real-cli`): Torii's tables and decisions against the
// installed AWS CLI and Google Cloud SDK (Python programs, about a second of CPU per start)
// and the Python libraries they read with (argparse, urllib, botocore's INI reader). Kept
// apart from `npm test` for its cost: a fifth of a cold `npm test`'s CPU for 5% of its files.
// `npm test` keeps the cheap real programs (kubectl, the real `aws` behind the STS check);
// .ci/run runs this suite after `npm test` and `npm run lint`.
export default defineConfig({
  test: {
    include: ["test/real-cli/**/*.test.ts"],
    pool: "forks",
    // As in vitest.config.ts: the files wait on Python processes more than they compute.
    maxWorkers: Math.max(2, os.availableParallelism()),
    // A worker runs its files in one process: a file that replaced a module with vi.mock would
    // reach the next one (the main config isolates such files; this one refuses them, below).
    isolate: false,
    // Hang guards, as in vitest.config.ts.
    testTimeout: 90_000,
    hookTimeout: 90_000,
    expect: { poll: { timeout: 30_000 } },
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-temp.ts"],
  },
});
