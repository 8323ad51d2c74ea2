import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 20_000,
    globalSetup: ["test/global-setup.ts"],
  },
});
