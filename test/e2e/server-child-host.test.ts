/**
 * The child host through the real server: a call's process is forked by the
 * host, never by the server; the host runs only its own file with an empty
 * environment; it dies with the server, and a host that dies fails its calls
 * closed, kills their processes, and is replaced at the next call.
 *
 * The fake CLIs report their pid and parent pid over a Unix socket as soon as
 * they run, so the tests wait on that event instead of a file or a sleep.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { alive } from "../support/processes.js";
import { tempDirectory } from "../support/temp-dirs.js";

const HOST_FILE = path.resolve(import.meta.dirname, "../../dist/server/child-host.js");
const SECRET = "env-secret-value-123";

interface Report {
  readonly pid: number;
  readonly ppid: number;
  readonly grandchild?: number;
}

/** Registers what to close when the test (onTestFinished) or the tests sharing a server (afterAll) end. */
type CleanUp = (cleanUp: () => Promise<void>) => void;

/** A Unix socket the fake CLIs report to; `next()` resolves with the next report. */
function reportSocket(cleanUp: CleanUp): { path: string; next: () => Promise<Report> } {
  const socketPath = path.join(tempDirectory("torii-host-"), "report.sock");
  const waiting: ((report: Report) => void)[] = [];
  const early: Report[] = [];
  const server = net.createServer((connection) => {
    let text = "";
    connection.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    connection.on("end", () => {
      const report = JSON.parse(text) as Report;
      const resolve = waiting.shift();
      if (resolve === undefined) early.push(report);
      else resolve(report);
    });
  });
  server.listen(socketPath);
  cleanUp(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    path: socketPath,
    next: () => {
      const report = early.shift();
      return report !== undefined ? Promise.resolve(report) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** A server with `whoami` (prints its pid and parent pid) and `holder` (reports, optionally starts a grandchild, then waits). */
async function hostSession(
  extraEnv: Record<string, string> = {},
  cleanUp: CleanUp = onTestFinished,
): Promise<{ session: McpSession; reports: ReturnType<typeof reportSocket> }> {
  const reports = reportSocket(cleanUp);
  const bin = makeFakeBin({
    whoami: `process.stdout.write(JSON.stringify({ pid: process.pid, ppid: process.ppid }));`,
    holder: `const grandchild = process.argv[2] === "tree" ? require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }) : undefined;
const socket = require("node:net").connect(${JSON.stringify(reports.path)}, () => socket.end(JSON.stringify({ pid: process.pid, ppid: process.ppid, grandchild: grandchild?.pid })));
setInterval(() => {}, 1000);`,
  });
  const provider = (tool: string): string => `version: "1"\nname: ${tool}\ntool: ${tool}\ncommand: ${tool}\n`;
  const root = makeConfigTree({
    "providers/whoami/provider.yaml": provider("whoami"),
    "providers/whoami/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    "providers/whoami/.env": `API_TOKEN=${SECRET}\n`,
    "providers/holder/provider.yaml": provider("holder"),
    "providers/holder/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
  });
  const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}`, ...extraEnv });
  cleanUp(() => session.close().catch(() => undefined));
  return { session, reports };
}

async function whoami(session: McpSession): Promise<Report> {
  const outcome = outcomeOf(await session.call("whoami", { args: ["x"] }));
  expect(outcome.execution?.exit_code).toBe(0);
  return JSON.parse(outcome.execution?.stdout ?? "") as Report;
}

function statusField(pid: number, field: string): string | undefined {
  return new RegExp(`^${field}:\\s*(.*)$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
}

const gone = (pid: number | undefined): Promise<void> => expect.poll(() => pid !== undefined && alive(pid), { timeout: 30_000 }).toBe(false);

describe.runIf(process.platform === "linux")("the child host", () => {
  // The first three tests share one server: each leaves it serving (the third with a new host for the next call),
  // and none depends on which host a call finds first, so a server per test would only start the same process again.
  let shared: Awaited<ReturnType<typeof hostSession>>;
  const sharedCleanUps: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    shared = await hostSession({ NODE_OPTIONS: "--max-old-space-size=300" }, (cleanUp) => sharedCleanUps.push(cleanUp));
  });
  afterAll(async () => {
    for (const cleanUp of sharedCleanUps.reverse()) await cleanUp();
  });

  test("a call's process is the host's child, not the server's; the host runs only its file, with no .env value and no NODE_OPTIONS", async () => {
    const { session } = shared;
    const serverPid = session.pid()!;
    const { ppid: hostPid } = await whoami(session);
    expect(hostPid).not.toBe(serverPid);
    expect(Number(statusField(hostPid, "PPid"))).toBe(serverPid);
    expect(readFileSync(`/proc/${hostPid}/cmdline`, "utf8").split("\0").filter(Boolean)).toEqual([process.execPath, "--single-threaded", HOST_FILE]);
    const environ = readFileSync(`/proc/${hostPid}/environ`, "utf8");
    expect(environ).not.toContain(SECRET);
    expect(environ).not.toContain("NODE_OPTIONS");
    // Only what Node itself adds for the IPC channel, and the host's own mark (host-leftovers.ts).
    expect(
      environ
        .split("\0")
        .filter(Boolean)
        .map((entry) => entry.split("=")[0]),
    ).toEqual(["TORII_HOST_MARK", "NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE"]);
    // The server itself did get NODE_OPTIONS (so the host's lack of it is the host's doing).
    expect(readFileSync(`/proc/${serverPid}/environ`, "utf8")).toContain("NODE_OPTIONS=--max-old-space-size=300");
    // A second call reuses the same host.
    expect((await whoami(session)).ppid).toBe(hostPid);
  });

  test("cancellation through the host kills the call's whole process group", async () => {
    const { session, reports } = shared;
    const abort = new AbortController();
    const call = session.call("holder", { args: ["tree"] }, { signal: abort.signal }).catch((error: unknown) => error);
    const report = await reports.next();
    expect(alive(report.grandchild!)).toBe(true);
    abort.abort();
    await call;
    await gone(report.pid);
    await gone(report.grandchild);
  });

  test("killing the host during a call ends it with a clear error, kills its process, and the next call runs in a new host", async () => {
    const { session, reports } = shared;
    const call = session.call("holder", { args: ["tree"] });
    const report = await reports.next();
    // The program reporting does not mean the server has heard of it yet: under load the host's "started" message
    // may still be on its way, and a host killed before it arrives is a different case (the start not reported).
    // The host answers launches over one ordered channel, so another call through it answered means the server
    // knows the holder's pid.
    expect((await whoami(session)).ppid).toBe(report.ppid);
    process.kill(report.ppid, "SIGKILL");
    const outcome = outcomeOf(await call);
    // The group's grandchild may not be dead yet when the server searches by the call's mark: it is then counted there too.
    expect(outcome.error).toMatch(
      /the child host exited \(SIGKILL\) during the call; its process group was killed(?:, and 1 process carrying the call's mark)?, nothing of it is left running/,
    );
    expect(outcome.execution).toBeUndefined();
    await gone(report.pid);
    await gone(report.grandchild);
    const next = await whoami(session);
    expect(next.ppid).not.toBe(report.ppid);
  });

  test("a SIGKILL of the server makes the host kill a running call's process group and exit", async () => {
    const { session, reports } = await hostSession();
    void session.call("holder", { args: ["tree"] }).catch(() => undefined);
    const report = await reports.next();
    process.kill(session.pid()!, "SIGKILL");
    await gone(report.pid);
    await gone(report.grandchild);
    await gone(report.ppid);
  });

  test("the end of the server's stdin ends the host and a running call's process group", async () => {
    const { session, reports } = await hostSession();
    const serverPid = session.pid()!;
    void session.call("holder", { args: ["tree"] }).catch(() => undefined);
    const report = await reports.next();
    await session.close();
    await gone(report.pid);
    await gone(report.grandchild);
    await gone(report.ppid);
    await gone(serverPid);
  });

  test("an idle host exits after the idle period and the next call starts a new one", async () => {
    const { session } = await hostSession({ TORII_CHILD_HOST_IDLE_MS: "200" });
    const first = await whoami(session);
    await gone(first.ppid);
    const second = await whoami(session);
    expect(second.ppid).not.toBe(first.ppid);
    expect(alive(second.ppid)).toBe(true);
  });
});
