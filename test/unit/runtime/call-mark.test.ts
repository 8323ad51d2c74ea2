/**
 * call-mark.ts kills the processes whose environment holds a call's mark, only
 * when they started no earlier than the call's child (a process already running
 * is not the call's descendant), and only for the exact entry (a longer value
 * that begins with the mark, or the mark under another name, is not it).
 * Linux only (/proc).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync } from "node:fs";
import { describe, expect, onTestFinished, test } from "vitest";
import { CALL_MARK_VARIABLE, killMarkedProcesses, newCallMark, pidsSince } from "../../../src/runtime/call-mark.js";
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
    expect(killMarkedProcesses(mark, { pid: marked.pid ?? 0, startedAt: startedAt + 1 })).toEqual([]);
    expect(alive(marked.pid ?? 0)).toBe(true);

    const exited = once(marked, "exit");
    expect(killMarkedProcesses(mark, { pid: marked.pid ?? 0, startedAt: 0 })).toEqual([marked.pid]);
    expect(await exited).toEqual([null, "SIGKILL"]);
    expect(alive(longer.pid ?? 0)).toBe(true);
    expect(alive(renamed.pid ?? 0)).toBe(true);
  });

  test("a marked process whose pid was handed out before the child's is not looked at", async () => {
    const mark = newCallMark("linux") ?? "";
    const marked = sleeper({ [CALL_MARK_VARIABLE]: mark });
    await once(marked, "spawn");
    const later = sleeper({});
    await once(later, "spawn");
    // As if the call's child were `later`: `marked` got its pid before, so it is no process the child started.
    expect(killMarkedProcesses(mark, { pid: later.pid ?? 0, startedAt: 0 })).toEqual([]);
    expect(alive(marked.pid ?? 0)).toBe(true);
  });

  test("a marked process with threads is killed once, by its own pid: a thread's id (which opens /proc/<tid> too) is not a process", async () => {
    const mark = newCallMark("linux") ?? "";
    // Node's own threads (V8's platform workers, libuv's) run before its script prints.
    const child = spawn(process.execPath, ["-e", "console.log('up'); setInterval(() => {}, 1e6)"], {
      stdio: ["ignore", "pipe", "ignore"],
      env: { [CALL_MARK_VARIABLE]: mark },
    });
    onTestFinished(() => {
      child.kill("SIGKILL");
    });
    await once(child.stdout, "data");
    const pid = child.pid ?? 0;
    const threads = readdirSync(`/proc/${String(pid)}/task`).map(Number);
    expect(threads.length).toBeGreaterThan(1);
    const exited = once(child, "exit");
    expect(killMarkedProcesses(mark, { pid, startedAt: 0 })).toEqual([pid]);
    expect(await exited).toEqual([null, "SIGKILL"]);
  });

  test("makes no mark off Linux", () => {
    expect(newCallMark("darwin")).toBeUndefined();
    expect(newCallMark("win32")).toBeUndefined();
  });
});

describe("pidsSince: the pids handed out since the child's", () => {
  const listing = (pids: readonly number[]) => {
    const list = { calls: 0, read: (): readonly number[] => ((list.calls += 1), pids) };
    return list;
  };

  test("none but the child's own when no pid was handed out since, without listing /proc", () => {
    const list = listing([1, 500, 501]);
    expect(pidsSince(500, 500, list.read)).toEqual([500]);
    expect(list.calls).toBe(0);
  });

  test("a few handed out since are probed one by one, without listing /proc", () => {
    const list = listing([]);
    expect(pidsSince(500, 503, list.read)).toEqual([500, 501, 502, 503]);
    expect(list.calls).toBe(0);
  });

  test("many handed out since: the listed processes in that range", () => {
    const list = listing([1, 499, 500, 520, 700, 900]);
    expect(pidsSince(500, 800, list.read)).toEqual([500, 520, 700]);
  });

  test("pids wrapped at pid_max: the listed ones from the child's up, and from the bottom to the last", () => {
    const list = listing([1, 40, 41, 499, 500, 32000]);
    expect(pidsSince(500, 40, list.read)).toEqual([1, 40, 500, 32000]);
  });

  test("every listed process when the last pid handed out cannot be read", () => {
    const list = listing([1, 2, 3]);
    expect(pidsSince(500, undefined, list.read)).toEqual([1, 2, 3]);
  });
});
