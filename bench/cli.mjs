// Operator CLI latency: `torii --version` and `torii target activate` (a real
// config with a target) against an empty `node -e ""`, interleaved run by run.
import { spawnSync } from "node:child_process";
import { CLI, since, targetConfig } from "./harness.mjs";
import { median, ms, pairedMedian } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const root = targetConfig("/bin/true");

function timed(args) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env: { ...process.env, TORII_CONFIG_DIR: root }, stdio: ["ignore", "ignore", "pipe"] });
  const elapsed = since(start);
  if (result.status !== 0) throw new Error(`${args.join(" ")} failed: ${result.stderr}`);
  return elapsed;
}

const commands = {
  node: ["-e", ""],
  version: [CLI, "--version"],
  activate: [CLI, "target", "activate", "kube", "dev", "--for", "60"],
};
for (const args of Object.values(commands)) timed(args);
const samples = { node: [], version: [], activate: [] };
for (let i = 0; i < RUNS; i += 1) {
  for (const [name, args] of Object.entries(commands)) samples[name].push(timed(args));
}
console.log(`operator CLI wall time, ${RUNS} interleaved runs`);
console.log(`  node -e "":               ${ms(median(samples.node))}`);
console.log(`  torii --version:          ${ms(median(samples.version))} (paired +${ms(pairedMedian(samples.version, samples.node))} over node; target <= 150 ms)`);
console.log(`  torii target activate:    ${ms(median(samples.activate))} (paired +${ms(pairedMedian(samples.activate, samples.node))} over node; target <= 300 ms)`);
