/**
 * call-mark.ts kills the processes whose environment holds a call's mark, only
 * when they started no earlier than the call's child (a process already running
 * is not the call's descendant), and only for the exact entry (a longer value
 * that begins with the mark, or the mark under another name, is not it).
 * Linux only (/proc).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, onTestFinished, test } from "vitest";
import { CALL_MARK_VARIABLE, killMarkedProcesses, newCallMark } from "../../../src/runtime/call-mark.js";
import { outputPipesOf } from "../../../src/runtime/pipe-holders.js";
import { alive } from "../../support/processes.js";

function sleeper(env: Record<string, string>): ReturnType<typeof spawn> {
  const child = spawn("sleep", ["60"], { stdio: "ignore", env });
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  return child;
}

describe.runIf(process.platform === "linux")("killMarkedProcesses", () => {
  test("kills a marked process started with or after the child, spares an older one and near misses", async () => {
    const mark = newCallMark("linux") ?? "";
    expect(mark).toMatch(/^[0-9a-f]{32}$/u);
    const marked = sleeper({ A: "1", [CALL_MARK_VARIABLE]: mark, B: "2" });
    const longer = sleeper({ [CALL_MARK_VARIABLE]: `${mark}0` });
    const renamed = sleeper({ [`X${CALL_MARK_VARIABLE}`]: mark });
    await Promise.all([once(marked, "spawn"), once(longer, "spawn"), once(renamed, "spawn")]);
    const { startedAt } = outputPipesOf(marked.pid, "linux");
    expect(Number.isFinite(startedAt)).toBe(true);

    // As if the call's child had started one tick after it: the marked process was already running.
    expect(killMarkedProcesses(mark, startedAt + 1)).toEqual([]);
    expect(alive(marked.pid ?? 0)).toBe(true);

    const exited = once(marked, "exit");
    expect(killMarkedProcesses(mark, 0)).toEqual([marked.pid]);
    expect(await exited).toEqual([null, "SIGKILL"]);
    expect(alive(longer.pid ?? 0)).toBe(true);
    expect(alive(renamed.pid ?? 0)).toBe(true);
  });

  test("makes no mark off Linux", () => {
    expect(newCallMark("darwin")).toBeUndefined();
    expect(newCallMark("win32")).toBeUndefined();
  });
});
