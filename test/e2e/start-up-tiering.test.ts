/**
 * src/mcp/start-up-tiering.ts, in a real Node process: held, a hot function
 * stays unoptimised however long it runs; released (the first tool call), hot
 * code is optimised again; an operator's own compiler flags on node's command
 * line or in NODE_OPTIONS are left alone; and nothing is ever printed. Runs
 * the tsc build (dist/mcp/).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const MODULE = fileURLToPath(new URL("../../dist/mcp/start-up-tiering.js", import.meta.url));

/**
 * Runs a hot function in rounds until V8 reports it optimised (bit 16 of
 * %GetOptimizationStatus). The probe compiles on the main thread
 * (--no-concurrent-recompilation), so a function is optimised within the round
 * that makes it hot whatever the machine's load: the first round does, and 30
 * rounds are far beyond it.
 */
const PROBE = `
const { holdOptimisingCompiler, releaseOptimisingCompiler } = await import(process.env.MODULE);
const optimisedAfterWork = async (f) => {
  for (let round = 0; round < 30; round += 1) {
    for (let i = 0; i < 1000; i += 1) f(i);
    if (%GetOptimizationStatus(f) & 16) return true;
  }
  return false;
};
if (process.env.HOLD === "1") holdOptimisingCompiler();
const held = await optimisedAfterWork(new Function("n", "let s = 0; for (let i = 0; i < 50; i += 1) s += (n * i) % 7; return s;"));
releaseOptimisingCompiler();
const released = await optimisedAfterWork(new Function("n", "let s = 0; for (let i = 0; i < 50; i += 1) s += (n * i) % 5; return s;"));
process.stderr.write(JSON.stringify({ held, released }));
`;

function probe(hold: boolean, nodeArgs: string[] = [], nodeOptions = ""): { held: boolean; released: boolean } {
  const result = spawnSync(process.execPath, ["--allow-natives-syntax", "--no-concurrent-recompilation", ...nodeArgs, "--input-type=module", "-e", PROBE], {
    env: { ...process.env, MODULE, HOLD: hold ? "1" : "0", NODE_OPTIONS: nodeOptions },
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout).toBe("");
  // The probe's report ends stderr (a V8 warning about a flag the operator set may precede it): the module printed nothing.
  return JSON.parse(result.stderr.slice(result.stderr.lastIndexOf("{"))) as { held: boolean; released: boolean };
}

describe("V8's optimising compiler held off during start-up", () => {
  test("without the hold, a hot function is optimised (the control)", () => {
    expect(probe(false)).toEqual({ held: true, released: true });
  });

  test("held, a hot function stays unoptimised; released, hot code is optimised again", () => {
    expect(probe(true)).toEqual({ held: false, released: true });
  });

  test.each([["--no-opt"], ["--max-opt=1"], ["--no_turbofan"]])("an operator's own %s on node's command line stays in force after the release", (flag) => {
    expect(probe(true, [flag])).toEqual({ held: false, released: false });
  });

  test("an operator's --jitless in NODE_OPTIONS is left alone", () => {
    expect(probe(true, [], "--jitless")).toEqual({ held: false, released: false });
  });
});
