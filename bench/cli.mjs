// Operator CLI latency: `torii --version` and `torii target activate` (a real
// config with a target) against an empty `node -e ""`, interleaved run by run.
import { spawnSync } from "node:child_process";
import { baselineCli, CLI, since, targetConfig } from "./harness.mjs";
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
  ...(baselineCli === undefined
    ? {}
    : { "version (baseline)": [baselineCli, "--version"], "activate (baseline)": [baselineCli, "target", "activate", "kube", "dev", "--for", "60"] }),
};
for (const args of Object.values(commands)) timed(args);
const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
for (let i = 0; i < RUNS; i += 1) {
  for (const [name, args] of Object.entries(commands)) samples[name].push(timed(args));
}
console.log(`operator CLI wall time, ${RUNS} interleaved runs`);
console.log(`  node -e "": ${ms(median(samples.node))}`);
for (const [name, values] of Object.entries(samples).filter(([name]) => name !== "node")) {
  const target = name.startsWith("version") ? "150" : "300";
  console.log(
    `  torii ${name}: ${ms(median(values))} (paired +${ms(pairedMedian(values, samples.node))} over node; ratio ${(median(values) / median(samples.node)).toFixed(2)}; target <= ${target} ms)`,
  );
}
