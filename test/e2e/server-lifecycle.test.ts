/**
 * Server lifecycle and bookkeeping through a real stdio session: calls beyond
 * max_concurrent_calls wait their turn; SIGTERM, a hang-up or a client that went away shuts the server down
 * and kills the children of calls in flight; every call leaves a verifiable audit chain
 * that holds no .env value and no more than two argv tokens.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { alive } from "../support/processes.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession } from "../support/mcp-session.js";
import { runCli } from "../support/run-cli.js";

const ACCEPT_ALL = 'version: "1"\naccept: ["/.*/"]\n';

describe("concurrency", () => {
  test("calls beyond max_concurrent_calls wait for a slot instead of running at once", async () => {
    const bin = makeFakeBin({
      span: `const start = Date.now(); setTimeout(() => process.stdout.write(JSON.stringify({ start, end: Date.now() })), 400);`,
    });
    const root = makeConfigTree({
      "settings.yaml": "max_concurrent_calls: 1\n",
      "providers/span/provider.yaml": 'version: "1"\nname: span\ntool: span\ncommand: span\n',
      "providers/span/rules.yaml": ACCEPT_ALL,
    });
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    try {
      const results = await Promise.all([1, 2, 3].map(() => session.call("span", { args: ["x"] })));
      const spans = results
        .map((result) => JSON.parse(outcomeOf(result).execution?.stdout ?? "") as { start: number; end: number })
        .sort((a, b) => a.start - b.start);
      for (let i = 1; i < spans.length; i += 1) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    } finally {
      await session.close();
    }
  });
});

describe("shutdown", () => {
  test.each([
    ["SIGTERM to the server", "SIGTERM", false, false],
    ["SIGHUP to the server and its child host, as a closing terminal sends its process group", "SIGHUP", true, false],
    // A client that died: nobody reads the server's stderr any more (its shutdown line gets EPIPE), and stdin ends.
    ["the client going away, its stderr reader first", "stdin", false, true],
  ] as const)("%s stops the server, kills the process group of a call in flight and writes its records", async (_, signal, toHost, stderrGone) => {
    const pidFile = path.join(makeConfigTree({}), "pid");
    const bin = makeFakeBin({ sleeper: `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);` });
    const root = makeConfigTree({
      "providers/sleeper/provider.yaml": 'version: "1"\nname: sleeper\ntool: sleeper\ncommand: sleeper\n',
      "providers/sleeper/rules.yaml": ACCEPT_ALL,
    });
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    const call = session.call("sleeper", { args: ["x"] }).catch((error: unknown) => error);
    // Polled within the test's own time limit, not a shorter one: on a loaded machine the
    // server, its child host and the sleeper may take seconds to start.
    let child = 0;
    while (child === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      try {
        child = Number(readFileSync(pidFile, "utf8")) || 0;
      } catch {
        child = 0;
      }
    }
    const serverPid = (session.client.transport as { pid: number | null } | undefined)?.pid ?? 0;
    expect(serverPid).toBeGreaterThan(0);
    const hosts = toHost ? childrenOf(serverPid) : [];
    if (toHost) expect(hosts).toHaveLength(1);
    const server = (session.client.transport as unknown as { _process?: ChildProcess })._process;
    if (stderrGone) server?.stderr?.destroy();
    if (signal === "stdin") server?.stdin?.end();
    else for (const pid of [serverPid, ...hosts]) process.kill(pid, signal);
    await call;
    await expect.poll(() => alive(child), { message: "the call's child survived", timeout: 30_000 }).toBe(false);
    await expect.poll(() => alive(serverPid), { message: "the server survived", timeout: 30_000 }).toBe(false);
    // It ended through its shutdown, not by an uncaught write error (exit code 1).
    await expect.poll(() => server?.exitCode, { message: "the server's exit code", timeout: 30_000 }).toBe(0);
    await session.close().catch(() => undefined);
    const events = readFileSync(path.join(root, "audit.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events.at(-1)).toBe("ran");
    expect((await runCli(["audit", "verify"], { TORII_CONFIG_DIR: root })).status).toBe(0);
  });
});

/** The pids of `pid`'s child processes (Linux). */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
}

describe("audit", () => {
  test("every call leaves a verifiable chain without .env values or more than two argv tokens", async () => {
    const bin = makeFakeBin();
    const root = makeConfigTree({
      "providers/rec/provider.yaml": 'version: "1"\nname: rec\ntool: rec\ncommand: recorder\n',
      "providers/rec/rules.yaml": 'version: "1"\ndeny: [push]\naccept: [status]\n',
      "providers/rec/.env": "API_TOKEN=env-secret-value-123\n",
    });
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    try {
      const allowed = outcomeOf(await session.call("rec", { args: ["status", "second-token", "third-token-private"] }));
      // The child had the value (its output is redacted on the way back to the agent).
      expect(allowed.execution?.stdout).toContain('"API_TOKEN":"[redacted:API_TOKEN]"');
      await session.call("rec", { args: ["push", "origin"] });
      await session.call("rec", { args: ["--token=pasted-credential-xyz", "status"] });
      await session.call("rec", { args: ["fetch"] });
    } finally {
      await session.close();
    }
    const text = readFileSync(path.join(root, "audit.jsonl"), "utf8");
    const events = text
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events).toEqual(expect.arrayContaining(["invoke", "allowed-by-rules", "ran", "denied-explicit", "denied-headless"]));
    expect(text).not.toContain("env-secret-value-123");
    expect(text).not.toContain("third-token-private");
    expect(text).not.toContain("pasted-credential-xyz");
    const verify = await runCli(["audit", "verify"], { TORII_CONFIG_DIR: root });
    expect(verify.status).toBe(0);
  });
});
