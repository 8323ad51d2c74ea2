/**
 * A child host that dies, or is given up, with a launch unfinished leaves
 * nothing of that launch running, whatever moment it died at: before it
 * spawned the program, between the spawn and its `spawned` report (the server
 * does not know the pid), or after the report. The server finds the program
 * and its descendants by the mark it drew and sent with the launch, a fork
 * of the host not yet running its program by the host's own mark, and a
 * given-up host's children by their parent (host-leftovers.ts).
 *
 * Real processes throughout: the program is a Node script that starts a
 * grandchild in a new session (out of its process group), and both hold the
 * write end of a FIFO the test reads. The first line gives their pids; the
 * FIFO's end (every writer gone) says both were killed (the kernel closes a
 * dying process's files just before it turns into a zombie, which the
 * liveness checks then wait for). The
 * host is held between the spawn and its report by a fake host that runs the
 * built launcher and never reports; the deadline of a given-up host runs on a
 * manual clock. Linux only (the searches read /proc).
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { createReadStream, existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, onTestFinished, test } from "vitest";
import { CALL_MARK_VARIABLE, newCallMark } from "../../../../src/runtime/call-mark.js";
import { ChildHostClient } from "../../../../src/runtime/child-host/host-client.js";
import { HOST_START_ALLOWANCE_MS } from "../../../../src/runtime/child-host/host-process.js";
import type { LaunchRequest } from "../../../../src/runtime/launcher.js";
import type { Timers } from "../../../../src/runtime/timers.js";
import { ManualTimers } from "../../../support/manual-timers.js";
import { alive } from "../../../support/processes.js";
import { tempDirectory } from "../../../support/temp-dirs.js";

const DIST = path.resolve(import.meta.dirname, "../../../../dist/runtime");
const BUILT_HOST = path.join(DIST, "child-host/child-host.js");
const SOURCES = path.resolve(import.meta.dirname, "../../../../src/runtime");

function built(file: string, source: string): string {
  if (!existsSync(file) || statSync(file).mtimeMs < statSync(source).mtimeMs) {
    throw new Error(`${file} is missing or older than its source: run \`npm run build\` first`);
  }
  return file;
}

/** The program: writes its pid and its grandchild's to the FIFO, both keep it open, and both wait forever. */
const PROGRAM = `const fs = require("node:fs");
const fd = fs.openSync(process.argv[1], "w");
const grandchild = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1e6)"], { detached: true, stdio: ["ignore", fd, "ignore"] });
fs.writeSync(fd, process.pid + " " + grandchild.pid + "\\n");
setInterval(() => {}, 1e6);`;

interface Watched {
  readonly request: LaunchRequest;
  /** The program's pid and its grandchild's, once both run. */
  readonly pids: Promise<readonly [number, number]>;
  /** Resolves when every writer of the FIFO is gone: the program and its grandchild are dead. */
  readonly ended: Promise<unknown>;
}

/** A launch of PROGRAM and the FIFO that watches it; whatever is left is killed when the test ends. */
function watchedProgram(): Watched {
  const fifo = path.join(tempDirectory("torii-host-death-"), "fifo");
  execFileSync("mkfifo", [fifo]);
  const reader = createReadStream(fifo, { encoding: "utf8" });
  let text = "";
  const pids = new Promise<readonly [number, number]>((resolve) => {
    reader.on("data", (chunk: string | Buffer) => {
      text += String(chunk);
      const line = /^(\d+) (\d+)\n/u.exec(text);
      if (line !== null) resolve([Number(line[1]), Number(line[2])]);
    });
  });
  onTestFinished(async () => {
    const [program, grandchild] = await Promise.race([pids, Promise.resolve([0, 0] as const)]);
    for (const pid of [program, grandchild]) if (pid > 1 && alive(pid)) process.kill(pid, "SIGKILL");
    reader.destroy();
  });
  const request: LaunchRequest = { executable: process.execPath, args: ["-e", PROGRAM, "--", fifo], env: {}, maxOutputBytes: 1 << 16, timeoutMs: 60_000 };
  return { request, pids, ended: once(reader, "end") };
}

/** What a held host does with a launch. */
const ON_LAUNCH = {
  /** Runs it with the built launcher (the program gets the server's mark) and never reports it. */
  spawn: `beginLaunch(message.request);`,
  /**
   * Starts it with the host's own environment and never reports it: as a fork of the host looks before its
   * `execve` (a copy of the host's environment, no call mark), made to last.
   */
  fork: `spawn(message.request.executable, message.request.args, { detached: true, stdio: "ignore" });`,
  /** Dies on it, before any spawn. */
  die: `process.kill(process.pid, "SIGKILL");`,
} as const;

/** A fake host held between its spawn and its `spawned` message (which it never sends). */
function heldHost(onLaunch: keyof typeof ON_LAUNCH = "spawn"): string {
  const launcher = pathToFileURL(built(path.join(DIST, "launcher.js"), path.join(SOURCES, "launcher.ts"))).href;
  const file = path.join(tempDirectory("torii-held-host-"), "host.mjs");
  writeFileSync(
    file,
    `import { spawn } from "node:child_process";
import { beginLaunch } from ${JSON.stringify(launcher)};
process.on("message", (message) => { if (message.type === "launch") { ${ON_LAUNCH[onLaunch]} } });
process.on("disconnect", () => process.exit(0));
process.send({ type: "ready" });\n`,
  );
  return file;
}

function clientFor(hostFile: string, timers?: Timers): ChildHostClient {
  const client = new ChildHostClient({ hostFile, idleMs: 60_000, ...(timers === undefined ? {} : { timers }) });
  onTestFinished(() => {
    client.close();
  });
  return client;
}

/** A process started now that carries another call's mark: no search of this call may touch it. */
function bystander(): number {
  const child = spawn("sleep", ["60"], { stdio: "ignore", env: { [CALL_MARK_VARIABLE]: newCallMark("linux") ?? "" } });
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  return child.pid ?? 0;
}

describe.runIf(process.platform === "linux")("a host gone with a launch unfinished leaves nothing of it running", () => {
  test("killed before it spawned the program: the call's error says the search found nothing running", async () => {
    const client = clientFor(heldHost("die"));
    await expect(client.start(watchedProgram().request)).rejects.toThrow(
      /^the child host exited \(SIGKILL\) before it reported the start of the process; the server searched for the call's processes \(its mark, the host's children and forks\) and found none running$/u,
    );
  });

  test.each([
    ["killed between the spawn and its report: the program and its grandchild in another session are found by the mark and killed", undefined],
    ["killed while a fork of it did not yet run its program (no call mark yet): the fork is found by the host's own mark", "fork"],
  ] as const)("%s", async (_what, moment) => {
    const client = clientFor(heldHost(moment));
    const program = watchedProgram();
    const starting = client.start(program.request);
    const [programPid, grandchildPid] = await program.pids;
    const other = bystander();
    process.kill(client.hostPid ?? 0, "SIGKILL");
    await expect(starting).rejects.toThrow(
      /^the child host exited \(SIGKILL\) before it reported the start of the process; the server searched for the call's processes \(its mark, the host's children and forks\) and killed 2 processes$/u,
    );
    await program.ended;
    await expect.poll(() => alive(programPid)).toBe(false);
    await expect.poll(() => alive(grandchildPid)).toBe(false);
    expect(alive(other)).toBe(true);
  });

  test("given up between the spawn and its report (past its answer deadline): stopped, its child and the marked grandchild killed", async () => {
    const timers = new ManualTimers();
    const client = clientFor(heldHost(), timers);
    const program = watchedProgram();
    const starting = client.start(program.request);
    const [programPid, grandchildPid] = await program.pids;
    // Whichever deadline runs (the start allowance's, or the plain one once the ready report was read) falls due.
    expect(timers.advance(HOST_START_ALLOWANCE_MS + 2_500)).toBe(1);
    await expect(starting).rejects.toThrow(
      /^the child host did not (?:start and )?answer within \d+ ms and was killed before it reported the start of the process; the server searched for the call's processes \(its mark, the host's children and forks\) and killed 2 processes$/u,
    );
    await program.ended;
    await expect.poll(() => alive(programPid)).toBe(false);
    await expect.poll(() => alive(grandchildPid)).toBe(false);
  });

  test("killed after its report: the group is killed, and the grandchild that left it is found by the mark", async () => {
    const client = clientFor(built(BUILT_HOST, path.join(SOURCES, "child-host/child-host.ts")));
    const program = watchedProgram();
    const started = await client.start(program.request);
    const [programPid, grandchildPid] = await program.pids;
    expect(started.pid).toBe(programPid);
    process.kill(client.hostPid ?? 0, "SIGKILL");
    await expect(started.running).rejects.toThrow(
      /^the child host exited \(SIGKILL\) during the call; its process group was killed, and 1 process carrying the call's mark, nothing of it is left running$/u,
    );
    await program.ended;
    await expect.poll(() => alive(programPid)).toBe(false);
    await expect.poll(() => alive(grandchildPid)).toBe(false);
  });
});
