// Runs every benchmark in turn; each prints its own figures.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const benches = ["decision.mjs", "regex-engine.mjs", "startup.mjs", "call-overhead.mjs", "cli.mjs", "memory.mjs", "audit-appends.mjs"];
for (const bench of benches) {
  const path = fileURLToPath(new URL(bench, import.meta.url));
  console.log(`\n== ${bench}`);
  const result = spawnSync(process.execPath, [path], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
