// Per-call overhead: an allowed call of a trivial binary through Torii (MCP
// round trip, policy, env build, spawn, audit) against spawning the same
// binary directly from Node. Interleaved; medians and their difference.
import { spawn } from "node:child_process";
import { benchConfig, CLI, connect } from "./harness.mjs";
import { median } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const BINARY = "/bin/true";
const root = benchConfig(BINARY);
const { client } = await connect(process.execPath, [CLI], { TORII_CONFIG_DIR: root });

function direct() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(BINARY, ["x"], { shell: false, stdio: ["ignore", "pipe", "pipe"] });
    child.on("error", reject);
    child.on("close", () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
  });
}

async function throughTorii() {
  const start = process.hrtime.bigint();
  const result = await client.callTool({ name: "run", arguments: { args: ["x"] } });
  if (result.isError) throw new Error(JSON.stringify(result.structuredContent));
  return Number(process.hrtime.bigint() - start) / 1e6;
}

for (let i = 0; i < 20; i += 1) {
  await direct();
  await throughTorii();
}
const viaTorii = [];
const viaNode = [];
for (let i = 0; i < RUNS; i += 1) {
  viaTorii.push(await throughTorii());
  viaNode.push(await direct());
}
await client.close();
const overhead = median(viaTorii) - median(viaNode);
console.log(`allowed call of ${BINARY}, median of ${RUNS} interleaved runs`);
console.log(`  through torii (MCP round trip): ${median(viaTorii).toFixed(2)} ms`);
console.log(`  direct spawn from node:         ${median(viaNode).toFixed(2)} ms`);
console.log(`  overhead: ${overhead.toFixed(2)} ms (target <= 5 ms), ratio ${(median(viaTorii) / median(viaNode)).toFixed(2)}`);
