/**
 * A wedged child host never keeps the lease lock: the built server, a real
 * host stopped with SIGSTOP before a target call that then waits for its
 * `spawned`, and the operator's real `torii target clear`. The launch's
 * deadline (shortened here by TORII_CHILD_HOST_SPAWN_DEADLINE_MS) gives the
 * host up: the call fails closed saying the server found none of its processes, the
 * host is killed, the lock is released so the clear succeeds, and the next
 * call runs in a new host. A host stopped while a process it spawned runs is
 * given up once the run's timeout, kill grace and that deadline have passed.
 *
 * Each step waits for the event before it (the host killed, the lock gone),
 * so no step races a deadline: that a clear already waiting behind a wedged
 * host gets the lock in time follows from the deadline being shorter than a
 * lock waiter's budget, checked below on the constants themselves.
 *
 * The two wedged-host tests run concurrently (each its own server, host and
 * configuration): they spend their time waiting out a deadline, not computing.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test, type TestContext } from "vitest";
import { DEFAULT_SPAWN_DEADLINE_MS } from "../../src/runtime/child-host/host-client.js";
import { STATE_LOCK_TIMING } from "../../src/state/lock.js";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import type { CallOutcome } from "../../src/pipeline/call-types.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { alive } from "../support/processes.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const SPAWN_DEADLINE_MS = 2_000;
/** The time between a timed-out process's SIGTERM and its SIGKILL (2 s by default), part of a spawned process's deadline. */
const KILL_GRACE_MS = 200;

/**
 * The built server with the fake CLIs of `binDir` and a short answer deadline; closed when the test ends.
 * Its idle host is kept for an hour: a host dropped as idle between two calls would make the second run in a new one.
 */
async function deadlineSession(root: string, binDir: string, onTestFinished: TestContext["onTestFinished"]): Promise<McpSession> {
  const session = await startSession(root, {
    PATH: `${binDir}:${process.env.PATH ?? ""}`,
    TORII_CHILD_HOST_SPAWN_DEADLINE_MS: String(SPAWN_DEADLINE_MS),
    TORII_KILL_GRACE_MS: String(KILL_GRACE_MS),
    TORII_CHILD_HOST_IDLE_MS: String(3_600_000),
  });
  onTestFinished(() => session.close().catch(() => undefined));
  return session;
}

/** Wedges the host with SIGSTOP; resumed when the test ends if it is still there. */
function stopUntilTestEnds(hostPid: number, onTestFinished: TestContext["onTestFinished"]): void {
  process.kill(hostPid, "SIGSTOP");
  onTestFinished(() => {
    if (alive(hostPid)) process.kill(hostPid, "SIGCONT");
  });
}

describe("the answer deadline against the lease lock", () => {
  test("a wedged host is given up (and the lock released) before a lock waiter's budget runs out, and before anyone may judge the lock stale", () => {
    expect(DEFAULT_SPAWN_DEADLINE_MS).toBeLessThan(STATE_LOCK_TIMING.waitMs);
    expect(DEFAULT_SPAWN_DEADLINE_MS).toBeLessThan(STATE_LOCK_TIMING.stale / 2);
  });
});

describe.runIf(process.platform === "linux").concurrent("a wedged child host", () => {
  test("a host stopped before it reports the spawn is given up at the deadline: the call fails closed, the lease lock is released for target clear", async ({
    expect,
    onTestFinished,
  }) => {
    const bin = makeFakeBin({ whoami: `process.stdout.write(JSON.stringify({ ppid: process.ppid }));` });
    const root = makeConfigTree({
      "providers/kube/provider.yaml": kubeContextProvider("must-not-run"),
      "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
      "providers/kube/targets/prod/target.yaml": 'version: "1"\nname: prod\ncontext: prod-ctx\nidentity: {provider: idp}\n',
      "providers/idp/provider.yaml": 'version: "1"\nname: idp\ntool: idp\ncommand: recorder\n',
      "providers/idp/rules.yaml": 'version: "1"\n',
      "providers/whoami/provider.yaml": 'version: "1"\nname: whoami\ntool: whoami\ncommand: whoami\n',
      "providers/whoami/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    });
    const session = await deadlineSession(root, bin.dir, onTestFinished);
    const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root });
    const whoami = async (): Promise<number> =>
      (JSON.parse(outcomeOf(await session.call("whoami", { args: ["x"] })).execution?.stdout ?? "{}") as { ppid: number }).ppid;

    expect((await cli("target", "activate", "kube", "prod", "--for", "5")).status).toBe(0);
    const hostPid = await whoami();
    stopUntilTestEnds(hostPid, onTestFinished);

    const call = session.call("kube", { args: ["get", "pods"], target: "prod" });
    // The call holds the lease lock while it waits for the stopped host's `spawned`; the deadline gives the
    // host up (it is killed: only a launch sent under the lock has a deadline) and the call lets the lock go.
    const lockDir = path.join(root, "providers/kube/.target-authorizations.yaml.lock");
    await expect.poll(() => alive(hostPid), { timeout: 30_000 }).toBe(false);
    await expect.poll(() => existsSync(lockDir), { timeout: 30_000, interval: 20 }).toBe(false);
    const clear = await cli("target", "clear", "kube");
    expect(clear.stderr).toBe("");
    expect(clear.status).toBe(0);

    const outcome = outcomeOf(await call);
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toMatch(
      new RegExp(
        `did not answer within ${SPAWN_DEADLINE_MS} ms and was killed before it reported the start of the process; the server searched for the call's processes \\(its mark, the host's children and forks\\) and found none running`,
      ),
    );
    // The stopped host never read the launch: nothing ran.
    expect(bin.ran("must-not-run")).toBe(false);

    // The lease is gone; the next call runs in a new host.
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision).toMatchObject({ source: "target-inactive" });
    const nextHost = await whoami();
    expect(nextHost).not.toBe(hostPid);
  });

  test("a host stopped while its process runs is given up past the run's timeout: the call fails closed and the process group is killed", async ({
    expect,
    onTestFinished,
  }) => {
    // The host must be stopped while its process runs, before the run's own timeout ends that process. A machine
    // too loaded to start the holder and stop the host within the timeout shows it (the host reports the timed-out
    // run) and gets another try with twice the timeout: a loaded machine makes the test longer, never failed.
    for (let seconds = 3; ; seconds *= 2) {
      const attempt = await stopHostWhileItRuns(seconds, onTestFinished);
      if (attempt.kind === "timed out first" && seconds < 48) continue;
      // Stopped between the holder's start and the host's `spawned` report (a loaded machine can run the holder's
      // start-up before the host writes that message): the other path, which the test above covers; try again.
      if (attempt.kind === "stopped before the report" && seconds < 48) continue;
      if (attempt.kind !== "stopped") throw new Error(`the host was not stopped within a ${seconds} s run: ${JSON.stringify(attempt)}`);
      const { outcome, holderPid, hostPid } = attempt;
      expect(outcome.execution).toBeUndefined();
      // The run's timeout + the kill grace + the deadline.
      expect(outcome.error).toMatch(
        new RegExp(
          `did not report the end of the process within ${seconds * 1000 + KILL_GRACE_MS + SPAWN_DEADLINE_MS} ms and was killed during the call; its process group was killed`,
        ),
      );
      await expect.poll(() => alive(holderPid), { timeout: 30_000 }).toBe(false);
      await expect.poll(() => alive(hostPid), { timeout: 30_000 }).toBe(false);
      return;
    }
  });
});

type StopAttempt =
  | { readonly kind: "stopped"; readonly outcome: CallOutcome; readonly holderPid: number; readonly hostPid: number }
  | { readonly kind: "timed out first" }
  | { readonly kind: "stopped before the report" }
  | { readonly kind: "unexpected"; readonly outcome: CallOutcome };

/**
 * Calls a holder (a process that runs until killed) with a run timeout of `seconds`, and stops the child host with
 * SIGSTOP once the holder said it runs. "timed out first" when the host reported the run ended by its timeout
 * before it could be stopped (the holder started too late, or the stop came too late).
 */
async function stopHostWhileItRuns(seconds: number, onTestFinished: TestContext["onTestFinished"]): Promise<StopAttempt> {
  const dir = tempDirectory("torii-holder-");
  const marker = path.join(dir, "pids");
  // The marker appears whole (a rename): the holder's pid and its parent's, the host's.
  const holder = `const fs = require("node:fs"); fs.writeFileSync(${JSON.stringify(`${marker}.tmp`)}, JSON.stringify([process.pid, process.ppid]));
fs.renameSync(${JSON.stringify(`${marker}.tmp`)}, ${JSON.stringify(marker)}); setInterval(() => {}, 1000);`;
  const bin = makeFakeBin({ holder });
  const root = makeConfigTree({
    "providers/holder/provider.yaml": `version: "1"\nname: holder\ntool: holder\ncommand: holder\nruntime: {timeout_seconds: ${seconds}}\n`,
    "providers/holder/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
  });
  const session = await deadlineSession(root, bin.dir, onTestFinished);
  let ended = false;
  const call = session.call("holder", { args: ["x"] }, { timeout: 120_000 }).finally(() => {
    ended = true;
  });
  while (!existsSync(marker) && !ended) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!existsSync(marker)) return ranOut(outcomeOf(await call));
  const [holderPid, hostPid] = JSON.parse(readFileSync(marker, "utf8")) as [number, number];
  stopUntilTestEnds(hostPid, onTestFinished);
  const outcome = outcomeOf(await call);
  if (outcome.execution === undefined && /before it reported the start of the process/u.test(outcome.error ?? "")) {
    // The server gave the host up without the holder's pid: it could not kill the holder, so the test does.
    if (alive(holderPid)) process.kill(holderPid, "SIGKILL");
    return { kind: "stopped before the report" };
  }
  if (outcome.execution === undefined) return { kind: "stopped", outcome, holderPid, hostPid };
  // The host answered before the stop: let it go on, for this session's close.
  if (alive(hostPid)) process.kill(hostPid, "SIGCONT");
  return ranOut(outcome);
}

/** A call whose host reported the run's end: by its timeout (the stop came too late), or something unexpected. */
function ranOut(outcome: CallOutcome): StopAttempt {
  return outcome.execution?.timed_out === true ? { kind: "timed out first" } : { kind: "unexpected", outcome };
}
