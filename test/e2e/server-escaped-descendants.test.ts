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
import { describe, expect, onTestFinished, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession } from "../support/mcp-session.js";
import { tempDirectory } from "../support/temp-dirs.js";
import { isAlive, killQuietly, waitUntilGone } from "../unit/runtime/process-helpers.js";

describe.runIf(process.platform === "linux")("a descendant that left the call's process group", () => {
  test("is killed when the program exits while it holds the output pipes", async () => {
    const marks = tempDirectory("torii-escaped-");
    const pidFile = path.join(marks, "descendant.pid");
    const bin = makeFakeBin({
      daemoniser: `const { spawn } = require("node:child_process");
// The pid file appears whole (a rename): read empty, it would be pid 0, the test runner's process group.
const keep = "const fs = require('node:fs'); fs.writeFileSync(process.argv[1] + '.tmp', String(process.pid)); fs.renameSync(process.argv[1] + '.tmp', process.argv[1]); setInterval(() => {}, 1000);";
const descendant = spawn(process.execPath, ["-e", keep, ${JSON.stringify(pidFile)}], { detached: true, stdio: ["ignore", "inherit", "inherit"] });
descendant.unref();
const wait = setInterval(() => {
  try { require("node:fs").readFileSync(${JSON.stringify(pidFile)}); } catch { return; }
  clearInterval(wait);
  process.stdout.write("started\\n");
}, 10);`,
    });
    const root = makeConfigTree({
      "providers/daemoniser/provider.yaml": 'version: "1"\nname: daemoniser\ntool: daemoniser\ncommand: daemoniser\n',
      "providers/daemoniser/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    });
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    onTestFinished(() => session.close().catch(() => undefined));

    const outcome = outcomeOf(await session.call("daemoniser", { args: ["start"] }));
    expect(outcome.execution).toMatchObject({ exit_code: 0, timed_out: false, stdout: "started\n" });
    const descendant = Number(readFileSync(pidFile, "utf8"));
    onTestFinished(() => killQuietly(descendant));
    expect(await waitUntilGone(descendant)).toBe(true);
    expect(isAlive(descendant)).toBe(false);
  });
  test("is killed when it started a session of its own and closed its output, its parent gone", async () => {
    const marks = tempDirectory("torii-daemon-");
    const pidFile = path.join(marks, "daemon.pid");
    // A double fork: the intermediate starts the daemon in a new session with no output, then exits; so does the program.
    const bin = makeFakeBin({
      daemon: `const { spawn } = require("node:child_process");
// The pid file appears whole (a rename): read empty, it would be pid 0, the test runner's process group.
const keep = "const fs = require('node:fs'); fs.writeFileSync(process.argv[1] + '.tmp', String(process.pid)); fs.renameSync(process.argv[1] + '.tmp', process.argv[1]); setInterval(() => {}, 1000);";
const middle = "require('node:child_process').spawn(process.execPath, ['-e', process.argv[1], process.argv[2]], { detached: true, stdio: 'ignore' }).unref();";
spawn(process.execPath, ["-e", middle, keep, ${JSON.stringify(pidFile)}], { detached: true, stdio: "ignore" }).unref();
const wait = setInterval(() => {
  try { require("node:fs").readFileSync(${JSON.stringify(pidFile)}); } catch { return; }
  clearInterval(wait);
  process.stdout.write("started\\n");
}, 10);`,
    });
    const root = makeConfigTree({
      "providers/daemon/provider.yaml": 'version: "1"\nname: daemon\ntool: daemon\ncommand: daemon\n',
      "providers/daemon/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    });
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` });
    onTestFinished(() => session.close().catch(() => undefined));

    const outcome = outcomeOf(await session.call("daemon", { args: ["start"] }));
    expect(outcome.execution).toMatchObject({ exit_code: 0, timed_out: false, stdout: "started\n" });
    const daemon = Number(readFileSync(pidFile, "utf8"));
    onTestFinished(() => killQuietly(daemon));
    expect(await waitUntilGone(daemon)).toBe(true);
  });
});
