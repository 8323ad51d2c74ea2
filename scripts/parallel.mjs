#!/usr/bin/env node
// Runs npm scripts at once (`node scripts/parallel.mjs build typecheck lint:eslint format:check`):
// `npm test` builds, type-checks and lints side by side on the machine's cores instead of one
// after the other (none of the checks reads dist/). Each script's output is printed whole when it ends, so outputs never
// interleave; the exit status is the first failure's (every script still runs to
// its end), so `npm test` fails on any failure.
import { spawn } from "node:child_process";

function run(script) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { shell: false, stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => resolve({ script, status: 1, output: Buffer.from(`${error.message}\n`) }));
    child.on("close", (code, signal) => resolve({ script, status: code ?? (signal === null ? 1 : 128), output: Buffer.concat(output) }));
  });
}

const scripts = process.argv.slice(2);
let status = 0;
await Promise.all(
  scripts.map(async (script) => {
    const result = await run(script);
    process.stdout.write(`> ${result.script}${result.status === 0 ? "" : ` (failed, status ${result.status})`}\n${result.output.toString("utf8")}`);
    if (result.status !== 0 && status === 0) status = result.status;
  }),
);
process.exitCode = status;
