/**
 * The server log under the configuration root: created 0600, appended, bounded
 * (rotated to .1), and never written through a planted link or into a file that
 * is not this user's own single-link regular file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, linkSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { appendServerLog, MAX_LOG_BYTES, serverLogPath } from "../../../src/config/server-log.js";
import { runChild } from "../state/child-process.js";
import { tempDir } from "./temp-tree.js";

const AT = new Date("2026-11-30T12:00:00.000Z");

describe("appendServerLog", () => {
  test("creates the log 0600 and appends timestamped entries, continuation lines indented", () => {
    const root = tempDir();
    expect(appendServerLog(root, "first\nsecond line", AT)).toBeUndefined();
    expect(appendServerLog(root, "again", AT)).toBeUndefined();
    const log = serverLogPath(root);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    expect(readFileSync(log, "utf8")).toBe(
      `2026-11-30T12:00:00.000Z torii[${process.pid}] first\n  second line\n2026-11-30T12:00:00.000Z torii[${process.pid}] again\n`,
    );
  });

  test("a full log is rotated to .1 and a new one started", () => {
    const root = tempDir();
    const log = serverLogPath(root);
    writeFileSync(log, "x".repeat(MAX_LOG_BYTES), { mode: 0o600 });
    expect(appendServerLog(root, "after rotation", AT)).toBeUndefined();
    expect(readFileSync(`${log}.1`, "utf8")).toHaveLength(MAX_LOG_BYTES);
    expect(readFileSync(log, "utf8")).toContain("after rotation");
  });

  test("a symbolic link planted at the log's name is not followed", () => {
    const root = tempDir();
    const victim = path.join(tempDir(), "victim");
    symlinkSync(victim, serverLogPath(root));
    expect(appendServerLog(root, "entry", AT)).toMatch(/could not be written/u);
    expect(existsSync(victim)).toBe(false);
  });

  test.skipIf(process.platform === "win32")(
    "a named pipe at the log's name is refused at once, without waiting for a reader (in a child: the old open never returned)",
    async () => {
      const root = tempDir();
      execFileSync("mkfifo", ["-m", "600", serverLogPath(root)]);
      const script = `
        const { appendServerLog } = await import(process.env.STATE_DIST + "/../config/server-log.js");
        console.log("logged " + String(appendServerLog(process.argv[1], "start-up failed")));
      `;
      const run = runChild(script, [root]);
      onTestFinished(() => {
        run.child.kill("SIGKILL");
      });
      expect(await run.line("logged ")).toMatch(/^logged .*torii-server\.log (could not be written|is not a regular file)/u);
    },
  );

  test("a hard link to another file is left alone", () => {
    const root = tempDir();
    const victim = path.join(tempDir(), "victim");
    writeFileSync(victim, "keep\n", { mode: 0o600 });
    linkSync(victim, serverLogPath(root));
    expect(appendServerLog(root, "entry", AT)).toMatch(/more than one link; left alone/u);
    expect(readFileSync(victim, "utf8")).toBe("keep\n");
  });

  test("a missing configuration root is reported, not created", () => {
    const root = path.join(tempDir(), "absent");
    expect(appendServerLog(root, "entry", AT)).toMatch(/could not be written/u);
    expect(existsSync(root)).toBe(false);
  });
});
