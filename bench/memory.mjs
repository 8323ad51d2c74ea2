// Memory: each server's idle RSS after start-up and tools/list (Torii with the
// four bundled providers installed, the bare SDK server, server-filesystem),
// read twice: 1 s after tools/list, and once V8's memory reducer has had its
// turn (it shrinks the heap some 10-20 s into an idle spell, so the second
// figure is what a server left idle in a client costs). The servers of a round
// run side by side, so the late reading costs one wait per round. Then Torii's peak RSS (VmHWM) while an allowed child writes 1 GiB under the
// default output cap. Streaming with a cap means the peak should barely move.
import { chmodSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  BARE_SERVER,
  baselineCli,
  baselineRepo,
  benchConfig,
  CLI,
  connect,
  FILESYSTEM_SERVER,
  installBundledProviders,
  memoryOf,
  privateBinDirectory,
} from "./harness.mjs";
import { median } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 5);
/** How long a server is left alone after tools/list before its RSS is read: just listed, and settled. */
const SETTLE_MS = 1000;
const LATE_MS = Number(process.env.BENCH_MEMORY_LATE_MS ?? 30_000);
// Not under the shared temporary directory: Torii refuses to run a program from there (anyone can create files first).
const bin = privateBinDirectory();
const writer = path.join(bin, "gigabyte");
writeFileSync(
  writer,
  `#!${process.execPath}\nconst chunk = Buffer.alloc(1 << 20, 0x61); let left = 1024;\n(function write() { while (left > 0) { left -= 1; if (!process.stdout.write(chunk)) { process.stdout.once("drain", write); return; } } })();\n`,
);
chmodSync(writer, 0o755);
const root = installBundledProviders(benchConfig(writer));
const baselineRoot = baselineRepo === undefined ? undefined : installBundledProviders(benchConfig(writer), baselineRepo);
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;

/** Starts a server, lists its tools, and reads its RSS after SETTLE_MS and after LATE_MS. */
async function idleRss(args, env) {
  const session = await connect(process.execPath, args, env);
  await session.client.listTools();
  await sleep(SETTLE_MS);
  const listed = memoryOf(session.pid).rss;
  await sleep(LATE_MS - SETTLE_MS);
  const settled = memoryOf(session.pid).rss;
  await session.client.close();
  return { listed, settled };
}

const servers = {
  torii: [[CLI], { TORII_CONFIG_DIR: root }],
  ...(baselineCli === undefined ? {} : { before: [[baselineCli], { TORII_CONFIG_DIR: baselineRoot }] }),
  bare: [[BARE_SERVER], {}],
  filesystem: [[FILESYSTEM_SERVER, os.tmpdir()], {}],
};
const idle = Object.fromEntries(Object.keys(servers).map((name) => [name, { listed: [], settled: [] }]));
for (let i = 0; i < RUNS; i += 1) {
  const round = await Promise.all(Object.values(servers).map(([args, env]) => idleRss(args, env)));
  Object.keys(servers).forEach((name, index) => {
    idle[name].listed.push(round[index].listed);
    idle[name].settled.push(round[index].settled);
  });
}
const labels = { torii: "torii (four bundled providers)", before: "baseline (BENCH_BASELINE)", bare: "bare SDK server", filesystem: "server-filesystem" };
console.log(`idle RSS ${SETTLE_MS} ms and ${LATE_MS} ms after tools/list, median of ${RUNS} (Linux /proc VmRSS)`);
for (const [name, { listed, settled }] of Object.entries(idle)) {
  const target = name === "torii" ? " (target <= 60 MiB)" : "";
  console.log(`  ${`${labels[name]}:`.padEnd(32)} ${mib(median(listed))} after ${SETTLE_MS} ms, ${mib(median(settled))} after ${LATE_MS} ms${target}`);
}

const { client, pid } = await connect(process.execPath, [CLI], { TORII_CONFIG_DIR: root });
await client.listTools();
const before = memoryOf(pid);
const start = Date.now();
const result = await client.callTool({ name: "run", arguments: { args: ["go"] } });
const elapsed = Date.now() - start;
const after = memoryOf(pid);
await client.close();
const execution = result.structuredContent?.execution;
// A call that did not run (refused, or could not start) measures nothing: say so instead of printing a figure.
if (execution === undefined) throw new Error(`the 1 GiB writer did not run: ${JSON.stringify(result.structuredContent)}`);
console.log(
  `  torii peak RSS while a child writes 1 GiB (default cap): ${mib(after.hwm)}, growth over the idle peak ${mib(after.hwm - before.hwm)} (target <= 20 MB)`,
);
console.log(`  call: truncated=${execution.truncated} kept=${Buffer.byteLength(execution.stdout ?? "")} bytes in ${elapsed} ms`);
