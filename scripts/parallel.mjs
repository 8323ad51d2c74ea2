#!/usr/bin/env node
// Runs npm scripts at once (`node scripts/parallel.mjs --live test:vitest build+test:vitest typecheck lint:eslint format:check`):
// `npm test` builds, type-checks and lints side by side on the machine's cores instead of one
// after the other, and vitest starts as soon as the build is done (its end-to-end suites run
// dist/), while the checks, which read no dist/, still run. `a+b` runs b after a, only if a
// succeeded. Each script's output is printed whole when it ends, so outputs never interleave,
// except the one named by `--live`, which writes to the terminal as it goes (vitest's progress).
// The exit status is the first failure's (every started script still runs to its end), so
// `npm test` fails on any failure.
import { spawn } from "node:child_process";

function run(script, live) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { shell: false, stdio: live ? "inherit" : ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout?.on("data", (chunk) => output.push(chunk));
    child.stderr?.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => resolve({ script, status: 1, output: Buffer.from(`${error.message}\n`) }));
    child.on("close", (code, signal) => resolve({ script, status: code ?? (signal === null ? 1 : 128), output: Buffer.concat(output) }));
  });
}

const args = process.argv.slice(2);
const liveAt = args.indexOf("--live");
const live = liveAt === -1 ? undefined : args.splice(liveAt, 2)[1];
let status = 0;
await Promise.all(
  args.map(async (chain) => {
    for (const script of chain.split("+")) {
      const result = await run(script, script === live);
      process.stdout.write(`> ${result.script}${result.status === 0 ? "" : ` (failed, status ${result.status})`}\n${result.output.toString("utf8")}`);
      if (result.status === 0) continue;
      if (status === 0) status = result.status;
      break;
    }
  }),
);
process.exitCode = status;
