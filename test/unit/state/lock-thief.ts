/**
 * A stalled lock holder and the process that robs it: `stallUntil` blocks
 * this process's event loop (no timer runs, so no lock refresh), as a long
 * garbage collection or a suspended laptop would; `startThief` runs a real
 * process that waits for the same lock as every writer does, takes it over
 * once stale, writes a marker and holds it until killed.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { onTestFinished } from "vitest";
import type { LockTiming } from "../../../src/state/lock.js";
import { runChild } from "./child-process.js";
import { tempDirectory } from "../../support/temp-dirs.js";

const THIEF = `
const { writeFileSync } = await import("node:fs");
const { withFileLock } = await import(process.env.STATE_DIST + "/lock.js");
const [file, timing, marker] = process.argv.slice(1);
const keepAlive = setInterval(() => {}, 1000);
await withFileLock(file, JSON.parse(timing), async () => {
  writeFileSync(marker, "locked");
  await new Promise(() => {});
});
clearInterval(keepAlive);
`;

/** Starts the thief on `file`'s lock; `robbed()` is true once it holds it. Killed when the test ends. */
export function startThief(file: string, timing: LockTiming): { robbed: () => boolean } {
  const marker = path.join(tempDirectory("torii-thief-"), "locked");
  const thief = runChild(THIEF, [file, JSON.stringify({ ...timing, waitMs: 60_000 }), marker]);
  onTestFinished(() => {
    thief.child.kill("SIGKILL");
  });
  return { robbed: () => existsSync(marker) };
}

/** Blocks the event loop until `done()` or `limitMs` (then throws): a stall, never a sleep between events. */
export function stallUntil(done: () => boolean, limitMs: number): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > until) throw new Error(`the stall waited ${limitMs} ms for its event`);
    Atomics.wait(cell, 0, 0, 10);
  }
}
