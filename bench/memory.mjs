// Memory: each server's idle RSS after start-up and tools/list (Torii with the
// four bundled providers installed, the bare SDK server, server-filesystem),
// then Torii's peak RSS (VmHWM) while an allowed child writes 1 GiB under the
// default output cap. Streaming with a cap means the peak should barely move.
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BARE_SERVER, baselineCli, baselineRepo, benchConfig, CLI, connect, FILESYSTEM_SERVER, installBundledProviders, memoryOf } from "./harness.mjs";
import { median } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_MEMORY_RUNS ?? 5);
/** How long a server is left alone after tools/list before its RSS is read. */
const SETTLE_MS = 1000;
const bin = mkdtempSync(path.join(os.tmpdir(), "torii-bench-bin-"));
const writer = path.join(bin, "gigabyte");
writeFileSync(
  writer,
  `#!${process.execPath}\nconst chunk = Buffer.alloc(1 << 20, 0x61); let left = 1024;\n(function write() { while (left > 0) { left -= 1; if (!process.stdout.write(chunk)) { process.stdout.once("drain", write); return; } } })();\n`,
);
chmodSync(writer, 0o755);
const root = installBundledProviders(benchConfig(writer));
const baselineRoot = baselineRepo === undefined ? undefined : installBundledProviders(benchConfig(writer), baselineRepo);
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;

async function idleRss(args, env) {
  const session = await connect(process.execPath, args, env);
  await session.client.listTools();
  await sleep(SETTLE_MS);
  const { rss } = memoryOf(session.pid);
  await session.client.close();
  return rss;
}

const idle = { torii: [], bare: [], filesystem: [], ...(baselineCli === undefined ? {} : { before: [] }) };
for (let i = 0; i < RUNS; i += 1) {
  idle.torii.push(await idleRss([CLI], { TORII_CONFIG_DIR: root }));
  idle.before?.push(await idleRss([baselineCli], { TORII_CONFIG_DIR: baselineRoot }));
  idle.bare.push(await idleRss([BARE_SERVER], {}));
  idle.filesystem.push(await idleRss([FILESYSTEM_SERVER, os.tmpdir()], {}));
}
console.log(`idle RSS ${SETTLE_MS} ms after tools/list, median of ${RUNS} (Linux /proc VmRSS)`);
console.log(`  torii (four bundled providers): ${mib(median(idle.torii))} (target <= 60 MiB)`);
if (idle.before !== undefined) console.log(`  baseline (BENCH_BASELINE):      ${mib(median(idle.before))}`);
console.log(`  bare SDK server:                ${mib(median(idle.bare))}`);
console.log(`  server-filesystem:              ${mib(median(idle.filesystem))}`);

const { client, pid } = await connect(process.execPath, [CLI], { TORII_CONFIG_DIR: root });
await client.listTools();
const before = memoryOf(pid);
const start = Date.now();
const result = await client.callTool({ name: "run", arguments: { args: ["go"] } });
const elapsed = Date.now() - start;
const after = memoryOf(pid);
await client.close();
const execution = result.structuredContent?.execution ?? {};
console.log(
  `  torii peak RSS while a child writes 1 GiB (default cap): ${mib(after.hwm)}, growth over the idle peak ${mib(after.hwm - before.hwm)} (target <= 20 MB)`,
);
console.log(`  call: truncated=${execution.truncated} kept=${Buffer.byteLength(execution.stdout ?? "")} bytes in ${elapsed} ms`);
