/**
 * A wedged child host never keeps the lease lock: the built server, a real
 * host stopped with SIGSTOP while a target call waits for its `spawned`, and
 * the operator's real `torii target clear` racing that call. The launch's
 * deadline (shortened here by TORII_CHILD_HOST_SPAWN_DEADLINE_MS) gives the
 * host up: the call fails closed saying the process may have started, the
 * host is killed, the lock is released so the clear succeeds, and the next
 * call runs in a new host. A host stopped while a process it spawned runs is
 * given up once the run's timeout, kill grace and that deadline have passed.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { kubeContextProvider, makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { alive } from "../support/processes.js";
import { runCli } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const SPAWN_DEADLINE_MS = 2_000;

/** The built server with the fake CLIs of `binDir` and a short answer deadline; closed when the test ends. */
async function deadlineSession(root: string, binDir: string): Promise<McpSession> {
  const session = await startSession(root, { PATH: `${binDir}:${process.env.PATH ?? ""}`, TORII_CHILD_HOST_SPAWN_DEADLINE_MS: String(SPAWN_DEADLINE_MS) });
  onTestFinished(() => session.close().catch(() => undefined));
  return session;
}

/** Wedges the host with SIGSTOP; resumed when the test ends if it is still there. */
function stopUntilTestEnds(hostPid: number): void {
  process.kill(hostPid, "SIGSTOP");
  onTestFinished(() => {
    if (alive(hostPid)) process.kill(hostPid, "SIGCONT");
  });
}

describe.runIf(process.platform === "linux")("a wedged child host", () => {
  test("a host stopped before it reports the spawn is given up at the deadline: the call fails closed, the lease lock is released for target clear", async () => {
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
    const session = await deadlineSession(root, bin.dir);
    const cli = (...args: string[]) => runCli(args, { TORII_CONFIG_DIR: root });
    const whoami = async (): Promise<number> =>
      (JSON.parse(outcomeOf(await session.call("whoami", { args: ["x"] })).execution?.stdout ?? "{}") as { ppid: number }).ppid;

    expect((await cli("target", "activate", "kube", "prod", "--for", "5")).status).toBe(0);
    const hostPid = await whoami();
    stopUntilTestEnds(hostPid);

    const call = session.call("kube", { args: ["get", "pods"], target: "prod" });
    // The call holds the lease lock while it waits for the stopped host's `spawned`.
    const lockDir = path.join(root, "providers/kube/.target-authorizations.yaml.lock");
    await expect.poll(() => existsSync(lockDir), { timeout: 30_000, interval: 20 }).toBe(true);
    const clear = await cli("target", "clear", "kube");
    expect(clear.stderr).toBe("");
    expect(clear.status).toBe(0);

    const outcome = outcomeOf(await call);
    expect(outcome.decision.result).toBe("allow");
    expect(outcome.execution).toBeUndefined();
    expect(outcome.error).toMatch(
      new RegExp(`did not answer within ${SPAWN_DEADLINE_MS} ms and was killed before it reported the start of the process; the process may have started`),
    );
    await expect.poll(() => alive(hostPid), { timeout: 30_000 }).toBe(false);
    expect(existsSync(lockDir)).toBe(false);
    // The stopped host never read the launch: nothing ran.
    expect(bin.ran("must-not-run")).toBe(false);

    // The lease is gone; the next call runs in a new host.
    expect(outcomeOf(await session.call("kube", { args: ["get", "pods"], target: "prod" })).decision).toMatchObject({ source: "target-inactive" });
    const nextHost = await whoami();
    expect(nextHost).not.toBe(hostPid);
  });

  test("a host stopped while its process runs is given up past the run's timeout: the call fails closed and the process group is killed", async () => {
    const marker = path.join(tempDirectory("torii-holder-"), "pid");
    const bin = makeFakeBin({ holder: `require("node:fs").writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setInterval(() => {}, 1000);` });
    const root = makeConfigTree({
      // 3 s: the holder has that long to start and write its marker before its timeout ends it, however loaded the machine.
      "providers/holder/provider.yaml": 'version: "1"\nname: holder\ntool: holder\ncommand: holder\nruntime: {timeout_seconds: 3}\n',
      "providers/holder/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    });
    const session = await deadlineSession(root, bin.dir);
    const call = session.call("holder", { args: ["x"] });
    await expect.poll(() => existsSync(marker), { timeout: 30_000, interval: 20 }).toBe(true);
    const holderPid = Number(readFileSync(marker, "utf8"));
    const hostPid = Number(/^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${holderPid}/status`, "utf8"))?.[1]);
    stopUntilTestEnds(hostPid);
    const outcome = outcomeOf(await call);
    expect(outcome.execution).toBeUndefined();
    // 3 s timeout + 2 s kill grace + the deadline.
    expect(outcome.error).toMatch(
      new RegExp(`did not report the end of the process within ${5_000 + SPAWN_DEADLINE_MS} ms and was killed during the call; its process group was killed`),
    );
    await expect.poll(() => alive(holderPid), { timeout: 30_000 }).toBe(false);
    await expect.poll(() => alive(hostPid), { timeout: 30_000 }).toBe(false);
  });
});
