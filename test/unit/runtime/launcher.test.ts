/**
 * launch(): exit status, argv and env fidelity, spawn failures. Real child
 * processes (node running inline scripts); the launcher itself never uses a shell.
 */
import { chmodSync, existsSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { launch, LaunchError, windowsTreeKillArgs } from "../../../src/runtime/launcher.js";
import { nodeScript } from "./process-helpers.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(tempDirectory("torii-launch-"));
  created.push(dir);
  return dir;
}

async function launchError(promise: Promise<unknown>): Promise<LaunchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(LaunchError);
    return error as LaunchError;
  }
  throw new Error("expected launch to reject with LaunchError");
}

describe("launch: exit status and output", () => {
  it("captures stdout and stderr of a successful run", async () => {
    const result = await launch(nodeScript(`process.stdout.write("out"); process.stderr.write("err");`));
    expect(result).toMatchObject({ exitCode: 0, signal: null, stdout: "out", stderr: "err", truncated: false, timedOut: false, canceled: false });
    expect(result.pid).toBeTypeOf("number");
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("reports a non-zero exit code as a result, not an error", async () => {
    const result = await launch(nodeScript(`process.stderr.write("boom"); process.exitCode = 3;`));
    expect(result).toMatchObject({ exitCode: 3, signal: null, stderr: "boom" });
  });

  it("reports death by a signal", async () => {
    const result = await launch(nodeScript(`process.stdout.write("before"); process.kill(process.pid, "SIGKILL");`));
    expect(result).toMatchObject({ exitCode: null, signal: "SIGKILL", timedOut: false, canceled: false });
  });

  it("passes every argument as one literal argv entry (no shell, no splitting, no expansion)", async () => {
    const args = ["$(whoami)", "a b", '"q"', "; rm -rf /", "", "*", "%PATH%", "--flag=x", "é😀", "line\nbreak"];
    const result = await launch(nodeScript(`process.stdout.write(JSON.stringify(process.argv.slice(1)))`, {}, args));
    expect(JSON.parse(result.stdout)).toEqual(args);
  });

  it("gives the child exactly the environment it was handed (and, on Linux, the call's own mark)", async () => {
    const mark = process.platform === "linux" ? { TORII_CALL_MARK: expect.stringMatching(/^[0-9a-f]{32}$/u) as unknown } : {};
    const env = { TORII_ONLY: "1", LANG: "C.UTF-8", EMPTY: "" };
    const result = await launch(nodeScript(`process.stdout.write(JSON.stringify(process.env))`, { env }));
    expect(JSON.parse(result.stdout)).toEqual({ ...env, ...mark });
    const empty = await launch(nodeScript(`process.stdout.write(JSON.stringify(process.env))`, { env: {} }));
    expect(JSON.parse(empty.stdout)).toEqual(mark);
  });

  it("runs in the given working directory", async () => {
    const dir = tempDir();
    const result = await launch(nodeScript(`process.stdout.write(process.cwd())`, { cwd: dir }));
    expect(result.stdout).toBe(dir);
  });

  it("closes stdin, so a child waiting for input sees end-of-file at once", async () => {
    const script = `let n = 0; process.stdin.on("data", (d) => { n += d.length; }); process.stdin.on("end", () => process.stdout.write("eof " + n));`;
    expect((await launch(nodeScript(script))).stdout).toBe("eof 0");
  });
});

describe("launch: start failures", () => {
  const secretEnv = { AWS_SECRET_ACCESS_KEY: "5ecret-value-never-shown" };

  it("rejects with LaunchError ENOENT naming the executable, not the environment", async () => {
    const error = await launchError(launch({ ...nodeScript(""), executable: "/nonexistent/torii-test-binary", env: secretEnv }));
    expect(error.code).toBe("ENOENT");
    expect(error.executable).toBe("/nonexistent/torii-test-binary");
    expect(error.message).toContain("/nonexistent/torii-test-binary");
    expect(error.message).not.toContain("5ecret");
  });

  it("rejects with LaunchError EACCES for a file that is not executable", async () => {
    const file = path.join(tempDir(), "not-executable");
    writeFileSync(file, "#!/bin/sh\necho hi\n");
    chmodSync(file, 0o644);
    const error = await launchError(launch({ ...nodeScript(""), executable: file, args: [], env: secretEnv }));
    expect(error.code).toBe("EACCES");
    expect(error.message).not.toContain("5ecret");
  });

  it("rejects a working directory that does not exist", async () => {
    const error = await launchError(launch(nodeScript("", { cwd: "/nonexistent/torii-cwd" })));
    expect(error.code).toBe("ENOENT");
  });

  it("rejects an argument holding a NUL byte without starting anything", async () => {
    const error = await launchError(launch(nodeScript("", {}, ["a\0b"])));
    expect(error.code).toBe("ERR_INVALID_ARG_VALUE");
  });

  it("refuses a relative executable and unusable limits before spawning", async () => {
    expect((await launchError(launch({ ...nodeScript(""), executable: "node" }))).code).toBe("ERR_LAUNCH_REQUEST");
    expect((await launchError(launch({ ...nodeScript(""), executable: "./node" }))).message).toMatch(/absolute/);
    expect((await launchError(launch(nodeScript("", { maxOutputBytes: -1 })))).message).toMatch(/maxOutputBytes/);
    expect((await launchError(launch(nodeScript("", { maxOutputBytes: 1.5 })))).message).toMatch(/maxOutputBytes/);
    expect((await launchError(launch(nodeScript("", { timeoutMs: 0 })))).message).toMatch(/timeoutMs/);
    expect((await launchError(launch(nodeScript("", { timeoutMs: Number.POSITIVE_INFINITY })))).message).toMatch(/timeoutMs/);
    expect((await launchError(launch(nodeScript("", { killGraceMs: -1 })))).message).toMatch(/killGraceMs/);
  });

  it("does not start a call whose signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const marker = path.join(tempDir(), "must-not-exist");
    const result = await launch(nodeScript(`require("node:fs").writeFileSync(process.argv[1], "x")`, { signal: controller.signal }, [marker]));
    expect(existsSync(marker)).toBe(false);
    expect(result).toMatchObject({ canceled: true, pid: undefined, exitCode: null, signal: null, stdout: "", durationMs: 0 });
  });
});

describe("windowsTreeKillArgs", () => {
  it("force-kills the whole tree of one PID", () => {
    expect(windowsTreeKillArgs(4242)).toEqual(["/T", "/F", "/PID", "4242"]);
  });
});
