/** Telling a running process from one that is gone, or whose pid another process now has. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { currentProcessIdentity, processState } from "../../../src/state/process-identity.js";

describe("processState", () => {
  it("says this process runs", () => {
    expect(processState(currentProcessIdentity())).toBe("running");
  });

  it("says a process that exited is gone", async () => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    const pid = child.pid ?? 0;
    await once(child, "exit");
    expect(processState({ pid, namespace: currentProcessIdentity().namespace })).toBe("gone");
  });

  it.runIf(process.platform === "linux")("records the start time on Linux, and a different one means the pid was reused", () => {
    const me = currentProcessIdentity();
    expect(me.started).toMatch(/^[0-9]+$/);
    expect(processState({ ...me, started: `${me.started ?? ""}0` })).toBe("gone");
  });

  it.runIf(process.platform === "linux")("records the PID namespace, and a server in another one counts as running: its pid means nothing here", async () => {
    const me = currentProcessIdentity();
    expect(me.namespace).toMatch(/^pid:\[[0-9]+\]$/);
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    const pid = child.pid ?? 0;
    await once(child, "exit");
    expect(processState({ pid, namespace: me.namespace })).toBe("gone");
    expect(processState({ pid, namespace: "pid:[1]" })).toBe("running");
    expect(processState({ pid }, me.namespace)).toBe("running");
  });

  it("never probes pid 0 or a negative pid (they name process groups)", () => {
    expect(processState({ pid: 0 })).toBe("gone");
    expect(processState({ pid: -1 })).toBe("gone");
    expect(processState({ pid: 0, namespace: "pid:[1]" })).toBe("gone");
  });
});
