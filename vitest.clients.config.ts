import { defineConfig } from "vitest/config";

// The real-client suite (npm run test:clients): the real Claude Code, Codex,
// Gemini CLI and MCP Inspector, installed from the npm registry by the global
// setup, drive the built Torii. Separate from `npm test` (slower, and it needs
// the registry once); .ci/run runs it after `npm test`.
export default defineConfig({
  test: {
    include: ["test/clients/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 600_000,
    globalSetup: ["test/clients/global-setup.ts"],
  },
});
