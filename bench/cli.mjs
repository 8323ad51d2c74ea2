// Operator CLI latency: `torii --version` and `torii target activate` (a real
// config with a target) through the package's `bin`, as an operator's shell runs
// them, against an empty `node -e ""`, interleaved run by run.
// `target activate` runs through V8's code cache (src/runtime/code-cache/code-cache.ts);
// "activate (no code cache)" is the same command with the cache directory made
// group-writable for that run, which the loader refuses to read or write: what a
// first run (or a root-owned install run by another user) costs.
import { spawnSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { baselineBin, BIN, since, targetConfig, withoutCodeCache } from "./harness.mjs";
import { median, ms, pairedMedian } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const root = targetConfig("/bin/true");

const CPU_AT_EXIT = fileURLToPath(new URL("cpu-at-exit.cjs", import.meta.url));

/** One run of `node args`: its wall time and the CPU time it reports at exit (cpu-at-exit.cjs, on fd 3), in ms. */
function timed(args) {
  if (args[0] === "no-code-cache") return withoutCodeCache(() => timed(args.slice(1)));
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ["--require", CPU_AT_EXIT, ...args], {
    env: { ...process.env, TORII_CONFIG_DIR: root },
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  const wall = since(start);
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
  return { wall, cpu: Number(result.output[3]) };
}

const commands = {
  node: ["-e", ""],
  version: [BIN, "--version"],
  activate: [BIN, "target", "activate", "kube", "dev", "--for", "60"],
  "activate (no code cache)": ["no-code-cache", BIN, "target", "activate", "kube", "dev", "--for", "60"],
  ...(baselineBin === undefined
    ? {}
    : { "version (baseline)": [baselineBin, "--version"], "activate (baseline)": [baselineBin, "target", "activate", "kube", "dev", "--for", "60"] }),
};
for (const args of Object.values(commands)) timed(args);
const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, { wall: [], cpu: [] }]));
for (let i = 0; i < RUNS; i += 1) {
  for (const [name, args] of Object.entries(commands)) {
    const { wall, cpu } = timed(args);
    samples[name].wall.push(wall);
    samples[name].cpu.push(cpu);
  }
}
console.log(`operator CLI, ${RUNS} interleaved runs, load average ${os.loadavg()[0].toFixed(1)} (wall time moves with the load, CPU time much less)`);
console.log(`  node -e "": wall ${ms(median(samples.node.wall))}, CPU ${ms(median(samples.node.cpu))}`);
for (const [name, { wall, cpu }] of Object.entries(samples).filter(([name]) => name !== "node")) {
  const target = name.startsWith("version") ? "150" : "300";
  console.log(
    `  torii ${name}: wall ${ms(median(wall))} (paired +${ms(pairedMedian(wall, samples.node.wall))} over node; ratio ${(median(wall) / median(samples.node.wall)).toFixed(2)}; target <= ${target} ms); CPU ${ms(median(cpu))} (paired +${ms(pairedMedian(cpu, samples.node.cpu))})`,
  );
}
