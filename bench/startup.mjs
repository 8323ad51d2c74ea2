// Start-up: from spawning the server to the answer of tools/list. Torii with
// the four bundled providers installed, the reference
// @modelcontextprotocol/server-filesystem, and a bare SDK server
// (bare-server.mjs), interleaved run by run so all see the same machine noise.
// Torii starts through V8's code cache (the first, untimed, start writes it);
// "torii-no-cache" is the same start with the cache refused: a first start.
import os from "node:os";
import {
  BARE_SERVER,
  baselineCli,
  baselineRepo,
  benchConfig,
  CLI,
  connect,
  FILESYSTEM_SERVER,
  installBundledProviders,
  since,
  withoutCodeCache,
} from "./harness.mjs";
import { median, ms, pairedRatio } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const root = installBundledProviders(benchConfig("true"));
const baselineRoot = baselineRepo === undefined ? undefined : installBundledProviders(benchConfig("true"), baselineRepo);

async function timeToTools(args, env) {
  const start = process.hrtime.bigint();
  const { client } = await connect(process.execPath, args, env);
  const { tools } = await client.listTools();
  const elapsed = since(start);
  await client.close();
  return { elapsed, tools: tools.length };
}

const servers = {
  torii: () => timeToTools([CLI], { TORII_CONFIG_DIR: root }),
  "torii-no-cache": () => withoutCodeCache(() => timeToTools([CLI], { TORII_CONFIG_DIR: root })),
  filesystem: () => timeToTools([FILESYSTEM_SERVER, os.tmpdir()], {}),
  bare: () => timeToTools([BARE_SERVER], {}),
  ...(baselineCli === undefined ? {} : { before: () => timeToTools([baselineCli], { TORII_CONFIG_DIR: baselineRoot }) }),
};
const toolsListed = (await servers.torii()).tools;
await servers.filesystem();
await servers.bare();
await servers.before?.();
const samples = Object.fromEntries(Object.keys(servers).map((name) => [name, []]));
for (let i = 0; i < RUNS; i += 1) {
  for (const [name, start] of Object.entries(servers)) samples[name].push((await start()).elapsed);
}
console.log(`start-up to tools/list, ${RUNS} interleaved runs; torii with the bundled kubectl, aws, az, gcloud providers (${toolsListed} tools)`);
console.log(
  `  medians: ${Object.entries(samples)
    .map(([name, values]) => `${name} ${ms(median(values))}`)
    .join(", ")}`,
);
const labels = { torii: "this build", "torii-no-cache": "this build, no code cache", before: "baseline (BENCH_BASELINE)" };
for (const build of ["torii", "torii-no-cache", "before"].filter((name) => name in samples)) {
  const label = labels[build];
  console.log(
    `  ${label} / server-filesystem: ${(median(samples[build]) / median(samples.filesystem)).toFixed(2)} (paired ${pairedRatio(samples[build], samples.filesystem).toFixed(2)}; target <= 0.8)`,
  );
  console.log(
    `  ${label} / bare SDK server:   ${(median(samples[build]) / median(samples.bare)).toFixed(2)} (paired ${pairedRatio(samples[build], samples.bare).toFixed(2)})`,
  );
}
