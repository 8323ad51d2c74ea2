/**
 * launch(): no process outlives its call. Timeouts and cancellation signal the
 * whole process group (SIGTERM, then SIGKILL after the grace); grandchildren
 * are killed when the child exits; a pipe held open cannot hang the call.
 *
 * Timeouts and graces run on a manual clock (test/support/manual-timers.ts),
 * moved only once the child said it is ready or that SIGTERM reached it: a
 * child slow to start on a loaded machine changes nothing the tests see.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launch } from "../../../src/runtime/launcher.js";
import { firstLinePid, killQuietly, nodeScript, SIGNAL_READY, spawnGrandchild, waitForFile, waitUntilGone } from "./process-helpers.js";
import { ManualTimers } from "../../support/manual-timers.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A path for a child's ready marker, in a fresh temporary directory. */
function readyMarker(): string {
  const dir = tempDirectory("torii-ready-");
  created.push(dir);
  return path.join(dir, "ready");
}

/** The file a child running IGNORES_SIGTERM creates when SIGTERM reaches it. */
const sigtermMarker = (ready: string): string => `${ready}.sigterm`;

/** A child that survives SIGTERM (says so on stderr, and creates its marker) until SIGKILL. */
const IGNORES_SIGTERM = `
  process.on("SIGTERM", () => {
    process.stderr.write("got SIGTERM\\n");
    require("node:fs").writeFileSync(process.argv[1] + ".sigterm", "");
  });
  process.stdout.write("ready\\n");
  ${SIGNAL_READY}
  setInterval(() => {}, 1000);`;

describe("launch: timeout", () => {
  it("sends SIGTERM to the group, then SIGKILL after the grace, for a child that ignores SIGTERM", async () => {
    const timers = new ManualTimers();
    const ready = readyMarker();
    const running = launch(nodeScript(IGNORES_SIGTERM, { timeoutMs: 1000, killGraceMs: 500, timers }, [ready]));
    await waitForFile(ready);
    expect(timers.pending).toEqual([1000]);
    timers.advance(1000);
    await waitForFile(sigtermMarker(ready));
    // SIGTERM was sent and ignored; SIGKILL waits for the whole grace.
    expect(timers.pending).toEqual([500]);
    timers.advance(500);
    const result = await running;
    expect(result).toMatchObject({ timedOut: true, canceled: false, exitCode: null, signal: "SIGKILL", stdout: "ready\n", stderr: "got SIGTERM\n" });
    expect(result.durationMs).toBe(1500);
  });

  it("ends with SIGTERM alone when the child honours it, before the grace runs out", async () => {
    const timers = new ManualTimers();
    const ready = readyMarker();
    const running = launch(nodeScript(`${SIGNAL_READY} setInterval(() => {}, 1000)`, { timeoutMs: 500, killGraceMs: 5000, timers }, [ready]));
    await waitForFile(ready);
    timers.advance(500);
    // The clock never reaches the grace: only SIGTERM can have ended the child.
    const result = await running;
    expect(result).toMatchObject({ timedOut: true, signal: "SIGTERM" });
    expect(result.durationMs).toBe(500);
  });

  it("kills the grandchildren of a child that timed out", async () => {
    const timers = new ManualTimers();
    const ready = readyMarker();
    const script = `${spawnGrandchild("ignore")} process.stdout.write(grandchild.pid + "\\n"); ${SIGNAL_READY} setInterval(() => {}, 1000);`;
    const running = launch(nodeScript(script, { timeoutMs: 1500, killGraceMs: 500, timers }, [ready]));
    await waitForFile(ready);
    timers.advance(1500);
    const result = await running;
    expect(result.timedOut).toBe(true);
    expect(await waitUntilGone(firstLinePid(result.stdout))).toBe(true);
  });
});

describe("launch: process-group cleanup after exit", () => {
  it("kills a sleeping grandchild left behind by a child that exited normally", async () => {
    const script = `${spawnGrandchild("ignore")} process.stdout.write(grandchild.pid + "\\n"); process.exit(0);`;
    const result = await launch(nodeScript(script));
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    const grandchild = firstLinePid(result.stdout);
    expect(await waitUntilGone(grandchild)).toBe(true);
  });

  it("does not hang on a grandchild in the group holding stdout open, and kills it", async () => {
    const script = `${spawnGrandchild("inherit")} process.stdout.write(grandchild.pid + "\\n"); process.exit(0);`;
    const result = await launch(nodeScript(script, { timeoutMs: 20_000 }));
    // Not timed out: it settled on the child's exit instead of waiting for the pipe (or the 20 s timeout).
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(await waitUntilGone(firstLinePid(result.stdout))).toBe(true);
  });

  it("settles shortly after exit even when an escaped grandchild (own session) holds the pipes", async () => {
    const script = `${spawnGrandchild("inherit", true)} process.stdout.write(grandchild.pid + "\\n"); process.exit(0);`;
    const result = await launch(nodeScript(script, { timeoutMs: 20_000 }));
    const escaped = firstLinePid(result.stdout);
    try {
      // Not timed out: the drain grace ended the wait on pipes the escaped grandchild (alive 300 s) holds.
      expect(result).toMatchObject({ exitCode: 0, timedOut: false, canceled: false });
    } finally {
      if (process.platform !== "linux") killQuietly(escaped);
    }
  });

  it.runIf(process.platform === "linux")("kills a grandchild that left the group (own session) but still holds the output pipes", async () => {
    const script = `${spawnGrandchild("inherit", true)} process.stdout.write(grandchild.pid + "\\n"); process.exit(0);`;
    const result = await launch(nodeScript(script, { timeoutMs: 20_000 }));
    const escaped = firstLinePid(result.stdout);
    try {
      expect(await waitUntilGone(escaped)).toBe(true);
    } finally {
      killQuietly(escaped);
    }
  });
});

describe("launch: cancellation", () => {
  it("kills the whole group when the signal aborts", async () => {
    const controller = new AbortController();
    const ready = readyMarker();
    const script = `${spawnGrandchild("ignore")} process.stdout.write(grandchild.pid + "\\n"); ${SIGNAL_READY} setInterval(() => {}, 1000);`;
    const running = launch(nodeScript(script, { signal: controller.signal, timeoutMs: 20_000 }, [ready]));
    await waitForFile(ready);
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ canceled: true, timedOut: false, signal: "SIGTERM" });
    expect(await waitUntilGone(firstLinePid(result.stdout))).toBe(true);
  });

  it("escalates to SIGKILL for a child that ignores SIGTERM", async () => {
    const controller = new AbortController();
    const timers = new ManualTimers();
    const ready = readyMarker();
    const running = launch(nodeScript(IGNORES_SIGTERM, { signal: controller.signal, killGraceMs: 300, timeoutMs: 20_000, timers }, [ready]));
    await waitForFile(ready);
    controller.abort();
    await waitForFile(sigtermMarker(ready));
    timers.advance(300);
    const result = await running;
    expect(result).toMatchObject({ canceled: true, timedOut: false, signal: "SIGKILL", stderr: "got SIGTERM\n" });
  });

  it("ignores an abort that comes after the child exited", async () => {
    const controller = new AbortController();
    const result = await launch(nodeScript(`process.stdout.write("done")`, { signal: controller.signal }));
    controller.abort();
    expect(result).toMatchObject({ canceled: false, exitCode: 0, stdout: "done" });
  });
});

describe("launch: the Windows branch, as far as it runs on Linux", () => {
  it("does not start a process group, and still ends a timed-out child (taskkill missing, direct kill fallback)", async () => {
    const timers = new ManualTimers();
    const ready = readyMarker();
    const running = launch(nodeScript(IGNORES_SIGTERM, { platform: "win32", timeoutMs: 600, killGraceMs: 5000, timers }, [ready]));
    await waitForFile(ready);
    timers.advance(600);
    const result = await running;
    // No SIGTERM stage on Windows: the tree is force-killed at once.
    expect(result).toMatchObject({ timedOut: true, signal: "SIGKILL", stderr: "" });
  });
});
