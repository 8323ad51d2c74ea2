/**
 * The server's side of the child host, against real host processes: the
 * built host (dist/runtime/child-host/child-host.js) running real programs,
 * and small fake hosts that misbehave on purpose. A message the client cannot
 * use never crashes it: an unknown id or a second answer is ignored, a
 * malformed message gives the host up and fails its calls closed.
 *
 * Answer deadlines that a test is about run on a manual clock
 * (test/support/manual-timers.ts), moved only after the event they race
 * (the host's answer, its ready report): a host slow on a loaded machine
 * changes nothing the tests see.
 */
import { spawn, type Serializable } from "node:child_process";
import { existsSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { ChildHostClient } from "../../../../src/runtime/child-host/host-client.js";
import { HOST_START_ALLOWANCE_MS } from "../../../../src/runtime/child-host/host-process.js";
import { ChildHostError } from "../../../../src/runtime/child-host/protocol.js";
import { launch, type LaunchRequest } from "../../../../src/runtime/launcher.js";
import { createRedactor } from "../../../../src/runtime/redaction.js";
import type { Timers } from "../../../../src/runtime/timers.js";
import { ManualTimers } from "../../../support/manual-timers.js";
import { alive } from "../../../support/processes.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const BUILT_HOST = path.resolve(import.meta.dirname, "../../../../dist/runtime/child-host/child-host.js");
const SOURCE_HOST = path.resolve(import.meta.dirname, "../../../../src/runtime/child-host/child-host.ts");

function builtHost(): string {
  if (!existsSync(BUILT_HOST) || statSync(BUILT_HOST).mtimeMs < statSync(SOURCE_HOST).mtimeMs) {
    throw new Error(`${BUILT_HOST} is missing or older than its source: run \`npm run build\` first`);
  }
  return BUILT_HOST;
}

function request(executable: string, args: readonly string[], extra: Partial<LaunchRequest> = {}): LaunchRequest {
  return { executable, args, env: { PATH: "/usr/bin:/bin" }, maxOutputBytes: 64 * 1024, timeoutMs: 10_000, killGraceMs: 200, ...extra };
}

/** A client whose host is closed when the test ends; `gone` resolves with each host's pid as it goes. */
function clientFor(hostFile: string, idleMs = 60_000, spawnDeadlineMs?: number, startAllowanceMs?: number, timers?: Timers) {
  const gone: ((pid: number | undefined) => void)[] = [];
  const client = new ChildHostClient({
    hostFile,
    idleMs,
    ...(spawnDeadlineMs === undefined ? {} : { spawnDeadlineMs }),
    ...(startAllowanceMs === undefined ? {} : { startAllowanceMs }),
    ...(timers === undefined ? {} : { timers }),
    onHostGone: (pid) => {
      gone.shift()?.(pid);
    },
  });
  onTestFinished(() => {
    client.close();
  });
  const nextGone = (): Promise<number | undefined> => new Promise((resolve) => gone.push(resolve));
  return { client, nextGone };
}

/**
 * A fake host: on each launch, runs `reply(send, message)` (a Node script body). `start` runs
 * first (a slow start-up); `ready: false` never reports ready, as a host wedged in its start-up.
 */
function fakeHost(reply: string, { start = "", ready = true }: { start?: string; ready?: boolean } = {}): string {
  const dir = tempDirectory("torii-fake-host-");
  const file = path.join(dir, "host.mjs");
  writeFileSync(
    file,
    `${start}
const send = (m) => process.send(m);
const ok = (id, stdout = "") => ({ type: "result", id, result: { exitCode: 0, signal: null, stdout, stderr: "", truncated: false, timedOut: false, canceled: false, durationMs: 1, pid: 4242 } });
process.on("message", (message) => { if (message.type === "launch") { ${reply} } });
process.on("disconnect", () => process.exit(0));
${ready ? 'send({ type: "ready" });' : ""}\n`,
  );
  return file;
}

describe("the built host", () => {
  test("runs the program and the server redacts the output exactly as an in-process launch does", async () => {
    const { client } = clientFor(builtHost());
    const secret = "s3cr3t-value-abcdef";
    const redactor = createRedactor([{ name: "API_TOKEN", value: secret }]);
    const run = request("/bin/echo", [`token=${secret}`, Buffer.from(secret).toString("base64")], { redactor });
    const started = await client.start(run);
    expect(started.pid).toBeGreaterThan(0);
    const viaHost = await started.running;
    const inProcess = await launch(run);
    expect(viaHost.stdout).toBe(inProcess.stdout);
    expect(viaHost.stdout).toContain("[redacted:API_TOKEN]");
    expect(viaHost.stdout).not.toContain(secret);
    expect(viaHost.exitCode).toBe(0);
  });

  test("a start that cannot spawn rejects with the launcher's LaunchError, rebuilt on the server's side", async () => {
    const { client } = clientFor(builtHost());
    await expect(client.start(request("/nonexistent/program", []))).rejects.toMatchObject({ name: "LaunchError", code: "ENOENT" });
  });

  test("a cancellation reaches the host, which ends the process; the result says canceled", async () => {
    const { client } = clientFor(builtHost());
    const abort = new AbortController();
    const started = await client.start(request("/bin/sleep", ["30"], { signal: abort.signal }));
    expect(alive(started.pid!)).toBe(true);
    abort.abort();
    const result = await started.running;
    expect(result.canceled).toBe(true);
    expect(alive(started.pid!)).toBe(false);
  });

  test("an idle host exits after the idle period and the next start runs in a new one", async () => {
    const { client, nextGone } = clientFor(builtHost(), 50);
    const exited = nextGone();
    await (
      await client.start(request("/bin/true", []))
    ).running;
    const first = client.hostPid;
    expect(first).toBeGreaterThan(0);
    expect(await exited).toBe(first);
    await (
      await client.start(request("/bin/true", []))
    ).running;
    expect(client.hostPid).toBeGreaterThan(0);
    expect(client.hostPid).not.toBe(first);
  });

  test("the host is started with an empty environment (on Linux, but its own mark) and no Node options of the server", async () => {
    const host = fakeHost(`send(ok(message.id, JSON.stringify({ env: process.env, execArgv: process.execArgv, argv: process.argv.slice(1) })));`);
    const { client } = clientFor(host);
    const seen = JSON.parse((await (await client.start(request("/bin/true", []))).running).stdout) as { env: object; execArgv: string[]; argv: string[] };
    // Only the host's own fixed V8 flags (host-tiering.ts).
    // Linux: the host's mark, which its forks hold until they execute their program (host-leftovers.ts).
    const env = process.platform === "linux" ? { TORII_HOST_MARK: expect.stringMatching(/^[0-9a-f]{32}$/u) as unknown } : {};
    expect(seen).toEqual({ env, execArgv: ["--single-threaded"], argv: [host] });
  });
});

describe.runIf(process.platform === "linux")("the call's mark", () => {
  test("each launch gets a new mark drawn by the server, never one its caller passed (two launches sharing one would die together)", async () => {
    const { client } = clientFor(builtHost());
    const given = "0123456789abcdef0123456789abcdef";
    const markOf = async (): Promise<string> =>
      (await (await client.start(request("/bin/sh", ["-c", 'printf %s "$TORII_CALL_MARK"'], { callMark: given }))).running).stdout;
    const [first, second] = [await markOf(), await markOf()];
    expect(first).toMatch(/^[0-9a-f]{32}$/u);
    expect(first).not.toBe(given);
    expect(second).not.toBe(first);
  });
});

describe("messages the host cannot use", () => {
  test("the host ignores a malformed message from its channel and still serves the next launch", async () => {
    const host = spawn(process.execPath, [builtHost()], { stdio: ["ignore", "ignore", "inherit", "ipc"], env: {} });
    onTestFinished(() => {
      host.kill("SIGKILL");
    });
    const answers: unknown[] = [];
    const settled = new Promise<void>((resolve) => {
      host.on("message", (message: { type: string }) => {
        answers.push(message);
        if (message.type !== "spawned" && message.type !== "ready") resolve();
      });
    });
    for (const garbage of [
      "launch",
      42,
      { type: "launch", id: 1, request: { executable: 5 } },
      { type: "launch", id: -1, request: {} },
      { type: "reboot", id: 2 },
      // A mark is the server's 128 random bits in hex, nothing else.
      { type: "launch", id: 3, request: { executable: "/bin/echo", args: [], env: {}, maxOutputBytes: 1024, timeoutMs: 10_000, callMark: "guessable" } },
    ]) {
      host.send(garbage as Serializable);
    }
    host.send({ type: "launch", id: 7, request: { executable: "/bin/echo", args: ["still here"], env: {}, maxOutputBytes: 1024, timeoutMs: 10_000 } });
    await settled;
    expect(answers).toEqual([
      { type: "ready" },
      { type: "spawned", id: 7, pid: expect.any(Number) as number },
      { type: "result", id: 7, result: expect.objectContaining({ exitCode: 0, stdout: "still here\n" }) as object },
    ]);
  });
});

describe("messages the client cannot use", () => {
  test("an answer for an unknown id is ignored; the call still gets its own", async () => {
    const { client } = clientFor(fakeHost(`send(ok(message.id + 1000, "stray")); send(ok(message.id, "mine"));`));
    expect((await (await client.start(request("/bin/true", []))).running).stdout).toBe("mine");
  });

  test("a second result for a settled launch is ignored and later calls still work", async () => {
    const { client } = clientFor(fakeHost(`send(ok(message.id, "first")); send(ok(message.id, "second"));`));
    expect((await (await client.start(request("/bin/true", []))).running).stdout).toBe("first");
    expect((await (await client.start(request("/bin/true", []))).running).stdout).toBe("first");
  });

  test("a malformed message gives the host up: the call fails with ChildHostError and the host is killed", async () => {
    const { client, nextGone } = clientFor(fakeHost(`send({ type: "result", id: message.id, result: { exitCode: "zero" } });`));
    const gone = nextGone();
    const start = client.start(request("/bin/true", []));
    await expect(start).rejects.toBeInstanceOf(ChildHostError);
    await expect(start).rejects.toThrow(
      /malformed message before it reported the start of the process; the server searched for the call's processes \(its mark, the host's children and forks\) and found none running/,
    );
    const pid = await gone;
    await expect.poll(() => alive(pid!)).toBe(false);
  });

  test("a spawned report naming pid 1 (a group kill of -1 would signal every process) is malformed: the host is given up", async () => {
    const { client, nextGone } = clientFor(fakeHost(`send({ type: "spawned", id: message.id, pid: 1 });`));
    const gone = nextGone();
    await expect(client.start(request("/bin/true", []))).rejects.toThrow(/malformed message/);
    await gone;
  });

  test("a host that dies after reporting a spawn fails the call and its process group is killed from the server", async () => {
    // The fake host starts a real process in its own group, reports it, then dies without a result.
    const host = fakeHost(
      `import("node:child_process").then(({ spawn }) => { const child = spawn("/bin/sleep", ["30"], { detached: true, stdio: "ignore" }); send({ type: "spawned", id: message.id, pid: child.pid }); setImmediate(() => process.exit(3)); });`,
    );
    const { client } = clientFor(host);
    const started = await client.start(request("/bin/sleep", ["30"]));
    await expect(started.running).rejects.toThrow(/the child host exited \(exit 3\) during the call; its process group was killed/);
    await expect.poll(() => alive(started.pid!)).toBe(false);
  });

  test("a host that does not answer a launch within the spawn deadline is given up: the call fails closed, the host and every group it reported are killed", async () => {
    // A launch of sleep is reported (a real process in its own group); one of true is never answered.
    const host = fakeHost(
      `if (message.request.executable === "/bin/sleep") import("node:child_process").then(({ spawn }) => { const child = spawn("/bin/sleep", ["30"], { detached: true, stdio: "ignore" }); send({ type: "spawned", id: message.id, pid: child.pid }); });`,
    );
    const timers = new ManualTimers();
    const { client, nextGone } = clientFor(host, 60_000, 2_500, undefined, timers);
    const gone = nextGone();
    const first = await client.start(request("/bin/sleep", ["30"]));
    const hostPid = client.hostPid;
    const second = client.start(request("/bin/true", []));
    // The unanswered launch's deadline, and the running one's: its timeout, its kill grace and the deadline.
    expect(timers.pending).toEqual([2_500, 10_000 + 200 + 2_500]);
    expect(timers.advance(2_500)).toBe(1);
    await expect(second).rejects.toThrow(
      /the child host did not answer within 2500 ms and was killed before it reported the start of the process; the server searched for the call's processes \(its mark, the host's children and forks\) and found none running/,
    );
    await expect(first.running).rejects.toThrow(/did not answer within 2500 ms and was killed during the call; its process group was killed/);
    expect(await gone).toBe(hostPid);
    await expect.poll(() => alive(hostPid!)).toBe(false);
    await expect.poll(() => alive(first.pid!)).toBe(false);
    // The next launch starts a new host.
    await expect(client.start(request("/bin/sleep", ["30"]))).resolves.toMatchObject({ pid: expect.any(Number) as number });
    expect(client.hostPid).not.toBe(hostPid);
  });

  test("the answer deadline runs from the host's ready report: a host busy starting up for longer than the deadline still runs the launch", async () => {
    // The host's start-up (a loaded machine's cold start) lasts until the test lets it end, after the clock passed the deadline.
    const go = path.join(tempDirectory("torii-slow-start-"), "go");
    const start = `import { existsSync } from "node:fs";
while (!existsSync(${JSON.stringify(go)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);`;
    const host = fakeHost("send(ok(message.id, 'slow start, then answered'));", { start });
    const timers = new ManualTimers();
    const { client } = clientFor(host, 60_000, 500, undefined, timers);
    const starting = client.start(request("/bin/true", []));
    // Sent during the host's start-up: the start allowance runs too, so 1.5 s of start-up fire nothing.
    expect(timers.pending).toEqual([HOST_START_ALLOWANCE_MS + 500]);
    expect(timers.advance(1_500)).toBe(0);
    writeFileSync(go, "");
    const started = await starting;
    expect((await started.running).stdout).toBe("slow start, then answered");
    // Once the host reported ready, the plain deadline was counted again from then.
    expect(timers.requested).toEqual([HOST_START_ALLOWANCE_MS + 500, 500]);
  });

  test("a host that never reports ready is given up after its start allowance and the answer deadline: the call fails closed", async () => {
    // Wedged in its start-up: it neither reports ready nor answers.
    const host = fakeHost("", { ready: false });
    const { client, nextGone } = clientFor(host, 60_000, 300, 300);
    const gone = nextGone();
    await expect(client.start(request("/bin/true", []))).rejects.toThrow(
      /the child host did not start and answer within 600 ms and was killed before it reported the start of the process; the server searched for the call's processes \(its mark, the host's children and forks\) and found none running/,
    );
    expect(await gone).toBeGreaterThan(1);
  });

  test("a host file that cannot run fails the call closed, and the next start tries a new host", async () => {
    const { client } = clientFor(path.join(os.tmpdir(), "torii-no-such-host.js"));
    await expect(client.start(request("/bin/true", []))).rejects.toBeInstanceOf(ChildHostError);
    await expect(client.start(request("/bin/true", []))).rejects.toBeInstanceOf(ChildHostError);
  });
});

describe("a server whose event loop stalls or is busy redacting", () => {
  test("a deadline that fires after a stall of the server looks once more after pending I/O: an answer waiting in the channel keeps the host", async () => {
    const marks = tempDirectory("torii-stall-");
    // The host writes a mark once its `spawned` is in the channel (the send's callback).
    const host = fakeHost(
      `process.send({ type: "spawned", id: message.id, pid: 4242 }, () => { import("node:fs").then((fs) => { fs.writeFileSync(${JSON.stringify(marks)} + "/" + message.id, ""); send(ok(message.id, "answered")); }); });`,
    );
    const timers = new ManualTimers();
    const { client } = clientFor(host, 60_000, 50, undefined, timers);
    expect((await (await client.start(request("/bin/true", []))).running).stdout).toBe("answered");
    const hostPid = client.hostPid;
    const start = client.start(request("/bin/true", []));
    // The 50 ms deadline falls due in the timers phase after the stall below, where a real one would run.
    let fired = -1;
    setTimeout(() => {
      fired = timers.advance(50);
    }, 0);
    // The server's event loop stalls (a long synchronous task) until the answer waits in the channel:
    // when the loop turns again, the deadline's timer runs before the channel is read.
    const stalledAt = performance.now();
    while (!existsSync(path.join(marks, "1")) && performance.now() - stalledAt < 30_000);
    // A lower bound, not a race: after 2 ms the 1 ms timer above is due, however slow the machine.
    while (performance.now() - stalledAt < 2);
    expect(existsSync(path.join(marks, "1"))).toBe(true);
    const started = await start;
    // The deadline ran while the answer still waited unread (reading it replaces the deadline), and kept the host.
    expect(fired).toBe(1);
    expect(started.pid).toBe(4242);
    expect((await started.running).stdout).toBe("answered");
    expect(client.hostPid).toBe(hostPid);
  });

  test("a large output is redacted in slices: a small call's result that arrived after it is answered first", async () => {
    const value = "Sup3rSecretValue-0123456789";
    // 4.2 MB of near misses, then the value. Both launches are reported spawned; once the second is,
    // the host sends the large result, then the small one.
    const host = fakeHost(
      `send({ type: "spawned", id: message.id, pid: 4242 }); if (message.id === 1) { send(ok(0, "Sup3rSecretValue-012345678X ".repeat(150000) + "${value}")); send(ok(1, "small ${value}")); }`,
    );
    const { client } = clientFor(host);
    const redactor = createRedactor([{ name: "API_TOKEN", value }]);
    const large = await client.start(request("/bin/true", [], { redactor, maxOutputBytes: 8 << 20 }));
    const small = await client.start(request("/bin/true", [], { redactor }));
    const order: string[] = [];
    const [largeResult, smallResult] = await Promise.all([
      large.running.then((result) => (order.push("large"), result)),
      small.running.then((result) => (order.push("small"), result)),
    ]);
    expect(order).toEqual(["small", "large"]);
    expect(smallResult.stdout).toBe("small [redacted:API_TOKEN]");
    expect(largeResult.stdout.endsWith("X [redacted:API_TOKEN]")).toBe(true);
  });
});
