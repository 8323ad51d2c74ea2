/**
 * src/runtime/child-host/host-tiering.ts in the real host: the bundled host
 * file (dist/server/child-host.js) runs in a real Node process with its IPC
 * channel, and once it reports ready a hot function in it stays unoptimised;
 * the same probe in a plain Node process sees the function optimised (the
 * control). Runs the bundle (`npm run build`).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { tempDirectory } from "../support/temp-dirs.js";

const HOST = fileURLToPath(new URL("../../dist/server/child-host.js", import.meta.url));

/**
 * Preloaded into the process: when the main module sends `ready` (the host's
 * last start-up step), runs a hot function in rounds and writes to stderr
 * whether V8 optimised it (bit 16 of %GetOptimizationStatus). Compiling on the
 * main thread (--no-concurrent-recompilation), a function is optimised within
 * the round that makes it hot whatever the machine's load.
 */
const PROBE = `
const hot = new Function("n", "let s = 0; for (let i = 0; i < 50; i += 1) s += (n * i) % 7; return s;");
const optimisedAfterWork = () => {
  for (let round = 0; round < 30; round += 1) {
    for (let i = 0; i < 1000; i += 1) hot(i);
    if (%GetOptimizationStatus(hot) & 16) return true;
  }
  return false;
};
const send = process.send.bind(process);
process.send = (message, ...rest) => {
  if (message?.type === "ready") send({ type: "probe", optimised: optimisedAfterWork() });
  return send(message, ...rest);
};
`;

function probe(main: string): Promise<{ optimised: boolean }> {
  const dir = tempDirectory("torii-host-tiering-");
  const preload = path.join(dir, "probe.cjs");
  writeFileSync(preload, PROBE);
  const child = spawn(process.execPath, ["--allow-natives-syntax", "--no-concurrent-recompilation", "--require", preload, main], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    env: {},
  });
  let report: { optimised: boolean } | undefined;
  return new Promise((resolve, reject) => {
    child.on("message", (message: { type?: string; optimised?: boolean }) => {
      if (message.type === "probe") report = { optimised: message.optimised === true };
      // Ready: the probe has reported; closing the channel makes the host exit.
      if (message.type === "ready") child.disconnect();
    });
    child.on("error", reject);
    child.on("exit", () => {
      if (report === undefined) reject(new Error("no report from the probe"));
      else resolve(report);
    });
  });
}

describe("the child host's compiler", () => {
  test("without the host's tiering, the probe's hot function is optimised (the control)", async () => {
    const dir = tempDirectory("torii-host-tiering-main-");
    const main = path.join(dir, "main.mjs");
    writeFileSync(main, `process.send({ type: "ready" }); process.on("disconnect", () => process.exit(0));`);
    expect(await probe(main)).toEqual({ optimised: true });
  });

  test("in the host, TurboFan is off: the same hot function stays unoptimised", async () => {
    expect(await probe(HOST)).toEqual({ optimised: false });
  });
});
