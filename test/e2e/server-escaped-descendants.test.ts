/**
 * No process outlives its call, through the real stdio server and its child
 * host: a program that starts a descendant in a session of its own (out of the
 * process group's reach) which keeps the program's output pipes, then exits.
 * The call must end, and the descendant with it (Linux: the holders of the
 * output pipes are found through /proc). And a daemon that left the group and
 * closed its output (a new session, stdio on /dev/null, its parent gone): found
 * through the call's mark in its environment (runtime/call-mark.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession, type McpSession } from "../support/mcp-session.js";
import { tempDirectory } from "../support/temp-dirs.js";
import { isAlive, killQuietly, waitUntilGone } from "../unit/runtime/process-helpers.js";

describe.runIf(process.platform === "linux")("a descendant that left the call's process group", () => {
  /** Pid files the fake programs' descendants write (whole, through a rename). */
  let marks: string;
  /** One server for both programs: each call is its own, and what it leaves behind is the test's to check. */
  let session: McpSession;

  beforeAll(async () => {
    marks = tempDirectory("torii-escaped-");
    const daemoniserPid = JSON.stringify(path.join(marks, "descendant.pid"));
    const daemonPid = JSON.stringify(path.join(marks, "daemon.pid"));
    const bin = makeFakeBin({
      // Starts a descendant in a session of its own that keeps the program's output pipes, then exits.
      daemoniser: `const { spawn } = require("node:child_process");
// The pid file appears whole (a rename): read empty, it would be pid 0, the test runner's process group.
const keep = "const fs = require('node:fs'); fs.writeFileSync(process.argv[1] + '.tmp', String(process.pid)); fs.renameSync(process.argv[1] + '.tmp', process.argv[1]); setInterval(() => {}, 1000);";
const descendant = spawn(process.execPath, ["-e", keep, ${daemoniserPid}], { detached: true, stdio: ["ignore", "inherit", "inherit"] });
descendant.unref();
const wait = setInterval(() => {
  try { require("node:fs").readFileSync(${daemoniserPid}); } catch { return; }
  clearInterval(wait);
  process.stdout.write("started\\n");
}, 10);`,
      // A double fork: the intermediate starts the daemon in a new session with no output, then exits; so does the program.
      daemon: `const { spawn } = require("node:child_process");
// The pid file appears whole (a rename): read empty, it would be pid 0, the test runner's process group.
const keep = "const fs = require('node:fs'); fs.writeFileSync(process.argv[1] + '.tmp', String(process.pid)); fs.renameSync(process.argv[1] + '.tmp', process.argv[1]); setInterval(() => {}, 1000);";
const middle = "require('node:child_process').spawn(process.execPath, ['-e', process.argv[1], process.argv[2]], { detached: true, stdio: 'ignore' }).unref();";
spawn(process.execPath, ["-e", middle, keep, ${daemonPid}], { detached: true, stdio: "ignore" }).unref();
const wait = setInterval(() => {
  try { require("node:fs").readFileSync(${daemonPid}); } catch { return; }
  clearInterval(wait);
  process.stdout.write("started\\n");
}, 10);`,
    });
    const root = makeConfigTree({
      "providers/daemoniser/provider.yaml": 'version: "1"\nname: daemoniser\ntool: daemoniser\ncommand: daemoniser\n',
      "providers/daemoniser/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
      "providers/daemon/provider.yaml": 'version: "1"\nname: daemon\ntool: daemon\ncommand: daemon\n',
      "providers/daemon/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    });
    session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
  });

  afterAll(async () => {
    await session.close();
  });

  test("is killed when the program exits while it holds the output pipes", async () => {
    const outcome = outcomeOf(await session.call("daemoniser", { args: ["start"] }));
    expect(outcome.execution).toMatchObject({ exit_code: 0, timed_out: false, stdout: "started\n" });
    const descendant = Number(readFileSync(path.join(marks, "descendant.pid"), "utf8"));
    onTestFinished(() => killQuietly(descendant));
    expect(await waitUntilGone(descendant)).toBe(true);
    expect(isAlive(descendant)).toBe(false);
  });
  test("is killed when it started a session of its own and closed its output, its parent gone", async () => {
    const outcome = outcomeOf(await session.call("daemon", { args: ["start"] }));
    expect(outcome.execution).toMatchObject({ exit_code: 0, timed_out: false, stdout: "started\n" });
    const daemon = Number(readFileSync(path.join(marks, "daemon.pid"), "utf8"));
    onTestFinished(() => killQuietly(daemon));
    expect(await waitUntilGone(daemon)).toBe(true);
  });
});
