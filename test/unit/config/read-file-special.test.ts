/**
 * A configuration file that is a named pipe (provider.yaml, rules.yaml, a .env
 * layer) is refused at once with an error naming it, instead of blocking the
 * synchronous read until a writer comes (the server's start or a call would
 * freeze). The read runs in a child over the built module (dist/config), so the
 * old behaviour, an open that never returns, fails by the test's timeout
 * without blocking the runner; the child is killed after.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { readConfigTextIfExists } from "../../../src/config/read-file.js";
import { runChild } from "../state/child-process.js";
import { tempDir } from "./temp-tree.js";

describe("readConfigTextIfExists", () => {
  test.skipIf(process.platform === "win32")("refuses a named pipe at once, naming the file", async () => {
    const fifo = path.join(tempDir(), "rules.yaml");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    const script = `
      const { readConfigTextIfExists } = await import(process.env.STATE_DIST + "/../config/read-file.js");
      try { readConfigTextIfExists(process.argv[1]); console.log("read ok"); } catch (error) { console.log("read " + error.message); }
    `;
    const run = runChild(script, [fifo]);
    onTestFinished(() => {
      run.child.kill("SIGKILL");
    });
    expect(await run.line("read ")).toBe(`read ${fifo}: is not a regular file (a named pipe, a device or a socket)`);
  });

  test("reads a regular file, says undefined for a missing one and refuses a directory", () => {
    const root = tempDir();
    writeFileSync(path.join(root, "a.yaml"), "x: 1\n");
    mkdirSync(path.join(root, "dir.yaml"));
    expect(readConfigTextIfExists(path.join(root, "a.yaml"))).toBe("x: 1\n");
    expect(readConfigTextIfExists(path.join(root, "none.yaml"))).toBeUndefined();
    expect(() => readConfigTextIfExists(path.join(root, "dir.yaml"))).toThrow("is a directory, expected a file");
  });
});
