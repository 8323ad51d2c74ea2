/**
 * Helpers for launcher tests: real child processes (node running an inline
 * script, no shell) and checks on whether a PID is still a live process.
 */
import { existsSync, readFileSync } from "node:fs";
import type { LaunchRequest } from "../../../src/runtime/launcher.js";

/** A request running `script` with this test's own node binary; `args` reach the script as process.argv.slice(1). */
export function nodeScript(script: string, overrides: Partial<LaunchRequest> = {}, args: readonly string[] = []): LaunchRequest {
  return {
    executable: process.execPath,
    // `--` ends node's own options, so every later token reaches the script untouched.
    args: ["-e", script, "--", ...args],
    env: {},
    maxOutputBytes: 1 << 20,
    timeoutMs: 10_000,
    ...overrides,
  };
}

/** A script fragment that starts a sleeping grandchild in the caller's process group and names it `grandchild`. */
export function spawnGrandchild(stdio: "ignore" | "inherit", detached = false): string {
  const stdioValue = stdio === "ignore" ? `"ignore"` : `["ignore", "inherit", "inherit"]`;
  return (
    `const grandchild = require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 300000)"], ` +
    `{ stdio: ${stdioValue}, detached: ${String(detached)} });`
  );
}

/**
 * Whether `pid` is a live process. A killed process whose parent already
 * exited stays a zombie until init reaps it, and in containers whose PID 1
 * does not reap, `kill(pid, 0)` keeps succeeding for it; a zombie runs nothing,
 * so it counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name: the first is the state.
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone; true if it went within `withinMs`. */
export async function waitUntilGone(pid: number, withinMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !isAlive(pid);
}

/** Polls until `file` exists (a child's way of saying it is ready). */
export async function waitForFile(file: string, withinMs = 30_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} did not appear within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A script fragment that creates the file named by the script's first argument. */
export const SIGNAL_READY = `require("node:fs").writeFileSync(process.argv[1], "");`;

/** Kills `pid` if it still exists (test cleanup for processes that deliberately escaped). */
export function killQuietly(pid: number): void {
  // 0 or a negative number would signal a process group: the test runner's own (a pid read from a file caught half-written).
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`not a process id: ${pid}`);
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** The first line of `text` as a PID. */
export function firstLinePid(text: string): number {
  const pid = Number.parseInt(text.split("\n")[0] ?? "", 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`expected a pid on the first line, got ${JSON.stringify(text.slice(0, 80))}`);
  return pid;
}
