/**
 * The searches a gone host's leftovers are found by (host-leftovers.ts), on
 * real processes. A host lives across many calls (until it has been idle for
 * a while), so the pid counter may wrap past the host's own pid while it
 * runs: a process started for it after such a wrap has a lower pid than the
 * host's. Such a host is stood in for by a process with a higher pid than
 * the marked one and the marked one's start time (no wrap is needed to test
 * what the search looks at). The host's mark is searched for first, to the
 * search's end (a fork in the middle of its `execve` holds neither mark when
 * read); then every unfinished launch's, together: one listing of /proc per
 * round, whatever the number of launches. Linux only (/proc).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { describe, expect, onTestFinished, test } from "vitest";
import { CALL_MARK_VARIABLE, listedProcesses, newCallMark } from "../../../../src/runtime/call-mark.js";
import { HOST_MARK_VARIABLE, killMarkedLeftovers, type HostIdentity } from "../../../../src/runtime/child-host/host-leftovers.js";
import { startTimeOf } from "../../../../src/runtime/proc-stat.js";

async function sleeper(env: Record<string, string> = {}): Promise<ChildProcess & { pid: number }> {
  const child = spawn("sleep", ["60"], { stdio: "ignore", env });
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  await once(child, "spawn");
  return child as ChildProcess & { pid: number };
}

/** A host as one started before the pid counter wrapped looks to a process started for it after: a higher pid, an earlier start. */
async function hostAboveWrap(marked: ChildProcess & { pid: number }, mark?: string): Promise<HostIdentity> {
  const later = await sleeper();
  expect(later.pid).toBeGreaterThan(marked.pid);
  return { pid: later.pid, startedAt: startTimeOf(String(marked.pid)) ?? Number.POSITIVE_INFINITY, mark };
}

describe.runIf(process.platform === "linux")("a host's leftovers after the pids wrapped past the host's", () => {
  test("a process carrying an unfinished launch's mark with a lower pid than the host's is found and killed", async () => {
    const mark = newCallMark("linux") ?? "";
    const program = await sleeper({ [CALL_MARK_VARIABLE]: mark });
    const host = await hostAboveWrap(program);
    const exited = once(program, "exit");
    expect(killMarkedLeftovers(host, [mark])).toEqual({ forks: [], byLaunch: [[program.pid]] });
    expect(await exited).toEqual([null, "SIGKILL"]);
  });

  test("a fork holding the host's mark with a lower pid than the host's is found and killed", async () => {
    const mark = newCallMark("linux") ?? "";
    const fork = await sleeper({ [HOST_MARK_VARIABLE]: mark });
    const host = await hostAboveWrap(fork, mark);
    const exited = once(fork, "exit");
    expect(killMarkedLeftovers(host, [])).toEqual({ forks: [fork.pid], byLaunch: [] });
    expect(await exited).toEqual([null, "SIGKILL"]);
  });

  test("a fork read in the middle of its execve (holding neither mark) is found by its call's mark once the host's search has ended", async () => {
    const hostMark = newCallMark("linux") ?? "";
    const mark = newCallMark("linux") ?? "";
    const directory = mkdtempSync(join(tmpdir(), "torii-host-leftovers-"));
    onTestFinished(() => {
      rmSync(directory, { recursive: true, force: true });
    });
    const go = join(directory, "go");
    execFileSync("mkfifo", [go]);
    // Holds neither mark until told to go, then executes its program with its call's mark, as a fork read between
    // the kernel's switch to the program's memory and its writing the program's environment looks (environ reads empty).
    const fork = spawn("/bin/sh", ["-c", `read go < "$0"; exec env ${CALL_MARK_VARIABLE}=${mark} sleep 60`, go], {
      stdio: "ignore",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    onTestFinished(() => {
      fork.kill("SIGKILL");
    });
    await once(fork, "spawn");
    const forkPid = fork.pid ?? 0;
    const host = await hostAboveWrap(fork as ChildProcess & { pid: number }, hostMark);
    const exited = once(fork, "exit");
    let listings = 0;
    const execveAtTheSecondListing = (): readonly number[] => {
      listings += 1;
      if (listings === 2) {
        writeFileSync(go, "go\n");
        // Until the program runs with its mark (the shell reads the line, env executes sleep).
        while (!readFileSync(`/proc/${String(forkPid)}/environ`).includes(`${CALL_MARK_VARIABLE}=${mark}`)) {
          expect(readFileSync(`/proc/${String(forkPid)}/stat`, "utf8")).not.toMatch(/\) Z /u);
        }
      }
      return listedProcesses();
    };

    expect(killMarkedLeftovers(host, [mark], execveAtTheSecondListing)).toEqual({ forks: [], byLaunch: [[forkPid]] });
    expect(await exited).toEqual([null, "SIGKILL"]);
  });

  test("one listing of /proc per round finds every unfinished launch's processes, after the host's forks' search", async () => {
    const hostMark = newCallMark("linux") ?? "";
    const [first, second] = [newCallMark("linux") ?? "", newCallMark("linux") ?? ""];
    const fork = await sleeper({ [HOST_MARK_VARIABLE]: hostMark });
    const firstProgram = await sleeper({ [CALL_MARK_VARIABLE]: first });
    const secondProgram = await sleeper({ [CALL_MARK_VARIABLE]: second });
    // Another call's process, started since the host: in no list above, so not killed.
    await sleeper({ [CALL_MARK_VARIABLE]: newCallMark("linux") ?? "" });
    const host = await hostAboveWrap(fork, hostMark);
    const exits = [fork, firstProgram, secondProgram].map((child) => once(child, "exit"));
    let listings = 0;
    const countedListing = (): readonly number[] => {
      listings += 1;
      return listedProcesses();
    };

    expect(killMarkedLeftovers(host, [first, undefined, second], countedListing)).toEqual({
      forks: [fork.pid],
      byLaunch: [[firstProgram.pid], [], [secondProgram.pid]],
    });
    // Each search's first round kills what it finds, its second finds nothing new and ends it: two for the host's mark,
    // two for the launches' together (a search per mark lists /proc twice each: 6).
    expect(listings).toBe(4);
    for (const exited of exits) expect(await exited).toEqual([null, "SIGKILL"]);
  });
});
