/**
 * What a call's process inherits from the client that started the server
 * (red team 9b F3, F6): a descriptor the client left open without
 * close-on-exec reaches the server and the child host, never the CLI; a umask
 * of 000 left by the client never makes the CLI's files group- or
 * world-writable. The client is the MCP SDK's real Client; between it and the
 * server a small launcher stands in for a client that leaks descriptor 20 and
 * runs with umask 000.
 */
import { execFileSync } from "node:child_process";
import { readlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import { makeConfigTree } from "../support/config-tree.js";
import { makeFakeBin } from "../support/fake-clis.js";
import { outcomeOf, startSession } from "../support/mcp-session.js";
import { CLI_PATH } from "../support/run-cli.js";
import { tempDirectory } from "../support/temp-dirs.js";

const LEAKED_FD = 20;

/** A launcher that runs the server with umask 000 and `leak` open at descriptor 20 (dup2'd: no close-on-exec). */
function leakyLauncher(leak: string): string {
  const dir = tempDirectory("torii-leaky-");
  const file = path.join(dir, "launcher.cjs");
  const stdio = ["inherit", "inherit", "inherit", ...Array.from({ length: LEAKED_FD - 3 }, () => "ignore")];
  writeFileSync(
    file,
    `const { spawn } = require("node:child_process");
process.umask(0);
const leak = require("node:fs").openSync(${JSON.stringify(leak)}, "a");
const child = spawn(process.execPath, [${JSON.stringify(CLI_PATH)}], { stdio: [...${JSON.stringify(stdio)}, leak] });
child.on("exit", (code) => process.exit(code ?? 1));`,
  );
  return file;
}

describe.runIf(process.platform === "linux")("what a call's process inherits from the client", () => {
  test("a descriptor the client leaked reaches the server but not the CLI, and the CLI's umask keeps 022", async () => {
    const leak = path.join(tempDirectory("torii-leak-"), "client-private.log");
    const bin = makeFakeBin({
      inspect: `const fs = require("node:fs");
const fds = fs.readdirSync("/proc/self/fd").map((fd) => { try { return fs.readlinkSync("/proc/self/fd/" + fd); } catch { return ""; } });
process.stdout.write(JSON.stringify({ fds, umask: process.umask() }));`,
    });
    const root = makeConfigTree({
      "providers/inspect/provider.yaml": 'version: "1"\nname: inspect\ntool: inspect\ncommand: inspect\n',
      "providers/inspect/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
    });
    const session = await startSession(root, { PATH: `${bin.dir}:${process.env.PATH ?? ""}` }, { entry: leakyLauncher(leak) });
    onTestFinished(() => session.close().catch(() => undefined));

    const outcome = outcomeOf(await session.call("inspect", { args: ["x"] }));
    expect(outcome.execution?.exit_code).toBe(0);
    const seen = JSON.parse(outcome.execution?.stdout ?? "") as { fds: string[]; umask: number };
    expect(seen.fds).not.toContain(leak);
    expect(seen.umask & 0o022).toBe(0o022);

    // The leak is real: the server (the launcher's child) holds it at descriptor 20.
    const launcherPid = session.pid()!;
    const serverPid = Number(
      execFileSync("pgrep", ["-P", String(launcherPid)], { encoding: "utf8" })
        .trim()
        .split("\n")[0],
    );
    expect(readlinkSync(`/proc/${serverPid}/fd/${LEAKED_FD}`)).toBe(leak);
  });
});
