// Start-up: from spawning the server to the answer of tools/list, Torii
// (one provider) against the reference @modelcontextprotocol/server-filesystem,
// interleaved run by run so both see the same machine noise.
import os from "node:os";
import { fileURLToPath } from "node:url";
import { benchConfig, CLI, connect } from "./harness.mjs";
import { median } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const reference = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url));
const root = benchConfig("true");

async function timeToTools(args, env) {
  const start = process.hrtime.bigint();
  const { client } = await connect(process.execPath, args, env);
  await client.listTools();
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  await client.close();
  return elapsed;
}

const torii = [];
const filesystem = [];
await timeToTools([CLI], { TORII_CONFIG_DIR: root });
await timeToTools([reference, os.tmpdir()], {});
for (let i = 0; i < RUNS; i += 1) {
  torii.push(await timeToTools([CLI], { TORII_CONFIG_DIR: root }));
  filesystem.push(await timeToTools([reference, os.tmpdir()], {}));
}
const ratio = median(torii) / median(filesystem);
console.log(`start-up to tools/list, median of ${RUNS} interleaved runs`);
console.log(`  torii:                ${median(torii).toFixed(1)} ms`);
console.log(`  server-filesystem:    ${median(filesystem).toFixed(1)} ms`);
console.log(`  ratio torii/reference: ${ratio.toFixed(2)} (target <= 1.5)`);
