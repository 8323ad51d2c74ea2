/**
 * pipe-holders.ts kills a process holding a call's output pipes only when it
 * started no earlier than the call's child: a process already running (an
 * operator's ssh ControlMaster handed the pipes by its mux client) is not the
 * call's descendant. Linux only (/proc).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, onTestFinished, test } from "vitest";
import { killPipeHolders, outputPipesOf } from "../../../src/runtime/pipe-holders.js";
import { alive } from "../../support/processes.js";

describe.runIf(process.platform === "linux")("killPipeHolders", () => {
  test("spares a holder that started before the child, and kills one that started with or after it", async () => {
    const holder = spawn("sleep", ["60"], { stdio: ["ignore", "pipe", "pipe"] });
    onTestFinished(() => {
      holder.kill("SIGKILL");
    });
    await once(holder, "spawn");
    const pipes = outputPipesOf(holder.pid, "linux");
    expect(pipes.links).toHaveLength(2);
    expect(Number.isFinite(pipes.startedAt)).toBe(true);

    // As if the call's child had started one tick after the holder: the holder was already running.
    expect(killPipeHolders({ links: pipes.links, startedAt: pipes.startedAt + 1 })).toEqual([]);
    expect(alive(holder.pid ?? 0)).toBe(true);

    const exited = once(holder, "exit");
    expect(killPipeHolders(pipes)).toEqual([holder.pid]);
    expect(await exited).toEqual([null, "SIGKILL"]);
  });

  test("finds nothing to kill off Linux or for a process that is gone", () => {
    expect(outputPipesOf(process.pid, "darwin")).toMatchObject({ links: [] });
    expect(killPipeHolders(outputPipesOf(undefined, "linux"))).toEqual([]);
  });
});
