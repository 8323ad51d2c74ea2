/**
 * Review finding for src/agents/launch-trust.ts (belongs in test/unit/agents/launch-trust.test.ts): Torii's code
 * under the shared temporary directory passes, while the PATH search never even enters it
 * (config/search-trust.ts sharedTemporaryDirectories: /tmp, $TMPDIR). An agent sandbox that confines writes to the
 * workspace still lets the agent write /tmp and $TMPDIR (Codex workspace-write, Claude Code's sandbox), so a
 * registration naming /tmp/…/dist/cli.js is code the agent can replace.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { launchProblems } from "../../../src/agents/launch-trust.js";
import { toriiCodeDirectory } from "../../../src/runtime/own-code.js";

describe("Torii's code in the shared temporary directory", () => {
  test("is refused like a CLI found there", () => {
    const root = path.join(mkdtempSync(path.join(os.tmpdir(), "torii-copy-")), "torii-mcp");
    mkdirSync(path.join(root, "dist"), { recursive: true, mode: 0o755 });
    for (const name of ["cli.js", "cli.cjs", "chunks", "server", "activate"]) {
      cpSync(path.join(toriiCodeDirectory(), name), path.join(root, "dist", name), { recursive: true });
    }
    const problems = launchProblems({
      node: process.execPath,
      cli: path.join(root, "dist", "cli.js"),
      configRoot: path.join(os.homedir(), ".config", "torii"),
    });
    rmSync(path.dirname(root), { recursive: true, force: true });
    expect(problems).not.toEqual([]); // actual: [] (the sticky /tmp above passes)
  });
});
