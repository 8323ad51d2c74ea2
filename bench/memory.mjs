// Memory: the server's idle RSS after start-up and tools/list, and its peak RSS
// (VmHWM) while an allowed child writes 1 GiB under the default output cap.
// Streaming with a cap means the peak should barely move.
import { writeFileSync, chmodSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { benchConfig, CLI, connect, memoryOf } from "./harness.mjs";

const bin = mkdtempSync(path.join(os.tmpdir(), "torii-bench-bin-"));
const writer = path.join(bin, "gigabyte");
writeFileSync(
  writer,
  `#!${process.execPath}\nconst chunk = Buffer.alloc(1 << 20, 0x61); let left = 1024;\n(function write() { while (left > 0) { left -= 1; if (!process.stdout.write(chunk)) { process.stdout.once("drain", write); return; } } })();\n`,
);
chmodSync(writer, 0o755);
const root = benchConfig(writer);
const { client, pid } = await connect(process.execPath, [CLI], { TORII_CONFIG_DIR: root });
await client.listTools();
await new Promise((resolve) => setTimeout(resolve, 500));
const idle = await memoryOf(pid);
const start = Date.now();
const result = await client.callTool({ name: "run", arguments: { args: ["go"] } });
const elapsed = Date.now() - start;
const after = await memoryOf(pid);
await client.close();
const execution = result.structuredContent?.execution ?? {};
console.log("server memory (Linux /proc, KiB → MiB)");
console.log(`  idle RSS:                        ${(idle.rss / 1024).toFixed(1)} MiB`);
console.log(`  peak RSS while a child writes 1 GiB (default cap): ${(after.hwm / 1024).toFixed(1)} MiB`);
console.log(`  peak growth over idle peak:      ${((after.hwm - idle.hwm) / 1024).toFixed(1)} MiB (target <= 20 MB)`);
console.log(`  call: truncated=${execution.truncated} kept=${Buffer.byteLength(execution.stdout ?? "")} bytes in ${elapsed} ms`);
