/**
 * `npm run demo` (scripts/demo.mjs, run here against the built dist/ the suite
 * requires): a real MCP client session that ends with a call no rule decides,
 * answered by the operator through `torii approvals approve` from another
 * process; the waiting call is then allowed.
 */
import path from "node:path";
import { describe, expect, test } from "vitest";
import { run, scratchHome } from "./support/real-clients.js";
import { REPO } from "./support/readme-path.js";

describe("the demo", () => {
  test("shows an approval answered through torii approvals approve, and the waiting call allowed", async () => {
    const result = await run(process.execPath, [path.join(REPO, "scripts", "demo.mjs")], { home: scratchHome(), cwd: REPO });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/torii approvals approve [0-9a-f]{16} --once\n.*allowed once[^\n]*\n\s*→ ALLOW \(human-once\)/u);
  });
});
