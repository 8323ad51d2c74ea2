/**
 * src/mcp/call-tiering.ts, in a real Node process: raised, a function the
 * size of a pipeline step, run once per call for thousands of calls, is not
 * optimised where V8's default would have optimised it, while the same function
 * run many times per call (a rule matcher) still is; an operator's own flag on node's command line, and
 * a V8 other than Node 20's, are left alone; nothing is printed. Runs the tsc
 * build (dist/mcp/).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const MODULE = fileURLToPath(new URL("../../dist/mcp/call-tiering.js", import.meta.url));

/**
 * `glue` and `hot` are the same loop-free function of some 200 bytes of
 * bytecode (above V8's early-optimisation size, so only the tick count decides):
 * `glue` runs 5,000 times, as a pipeline step over 5,000 calls; `hot` 60,000
 * times, as a matcher run for each of a policy's rules in a few calls. Tiering counts bytecode executed, not time, and the probe compiles on the
 * main thread (--no-concurrent-recompilation): the outcome does not depend on load.
 * 5,000 calls of `glue` reach the default threshold (4 ticks of its size) but not
 * the raised one (31 ticks); 60,000 reach both.
 */
const PROBE = `
const { raiseOptimisationThreshold } = await import(process.env.MODULE);
if (process.env.RAISE === "1") raiseOptimisationThreshold(process.env.V8_VERSION || undefined);
const statements = Array.from({ length: 24 }, (_, i) => "a = (a * " + (i + 3) + " + n) % 1009;").join(" ");
const glue = new Function("n", "let a = n; " + statements + " return a;");
const hot = new Function("n", "let a = n; " + statements + " return a;");
for (let call = 0; call < 5000; call += 1) glue(call);
for (let call = 0; call < 60000; call += 1) hot(call);
const optimised = (f) => (%GetOptimizationStatus(f) & 16) !== 0;
process.stderr.write(JSON.stringify({ glue: optimised(glue), hot: optimised(hot) }));
`;

function probe(raise: boolean, nodeArgs: string[] = [], v8Version = ""): { glue: boolean; hot: boolean } {
  const result = spawnSync(process.execPath, ["--allow-natives-syntax", "--no-concurrent-recompilation", ...nodeArgs, "--input-type=module", "-e", PROBE], {
    env: { ...process.env, MODULE, RAISE: raise ? "1" : "0", V8_VERSION: v8Version, NODE_OPTIONS: "" },
    encoding: "utf8",
  });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stdout).toBe("");
  return JSON.parse(result.stderr.slice(result.stderr.lastIndexOf("{"))) as { glue: boolean; hot: boolean };
}

// Later V8s tier up by invocation counts and keep their defaults (the module does nothing there).
describe.runIf(process.versions.v8.startsWith("11."))("V8's optimisation threshold raised for the call side", () => {
  test("by default, once-per-call glue is optimised within 5,000 calls (the control)", () => {
    expect(probe(false)).toEqual({ glue: true, hot: true });
  });

  test("raised, once-per-call glue stays unoptimised while the same function run many times per call is optimised", () => {
    expect(probe(true)).toEqual({ glue: false, hot: true });
  });

  test("an operator's own --ticks-before-optimization on node's command line stays in force", () => {
    expect(probe(true, ["--ticks-before-optimization=3"])).toEqual({ glue: true, hot: true });
  });

  test("a V8 other than Node 20's is left alone", () => {
    expect(probe(true, [], "12.4.254.21-node.33")).toEqual({ glue: true, hot: true });
  });
});
