/**
 * startLaunch(): the StartLaunch the operator CLI uses (and the child host's
 * way of starting): it resolves once the process runs, before it ends, with
 * the pid; it rejects when the process cannot be started; a request canceled
 * already resolves without starting anything.
 */
import { describe, expect, it } from "vitest";
import { LaunchError, startLaunch } from "../../../src/runtime/launcher.js";
import { isAlive, nodeScript } from "./process-helpers.js";

describe("startLaunch", () => {
  it("resolves with the running process's pid before the run ends", async () => {
    const abort = new AbortController();
    const started = await startLaunch(nodeScript("setInterval(() => {}, 1000);", { signal: abort.signal, killGraceMs: 100 }));
    expect(started.pid).toBeTypeOf("number");
    expect(isAlive(started.pid!)).toBe(true);
    abort.abort();
    expect(await started.running).toMatchObject({ canceled: true, pid: started.pid });
  });

  it("rejects with LaunchError when the process cannot be started", async () => {
    await expect(startLaunch(nodeScript("", { executable: "/nonexistent/program" }))).rejects.toBeInstanceOf(LaunchError);
    await expect(startLaunch(nodeScript("", { executable: "relative/program" }))).rejects.toMatchObject({ code: "ERR_LAUNCH_REQUEST" });
  });

  it("a request canceled before the start resolves without a pid and starts nothing", async () => {
    const abort = new AbortController();
    abort.abort();
    const started = await startLaunch(nodeScript("process.exit(3)", { signal: abort.signal }));
    expect(started.pid).toBeUndefined();
    expect(await started.running).toMatchObject({ canceled: true, exitCode: null, pid: undefined });
  });
});
