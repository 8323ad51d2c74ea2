// Per-call overhead, paired: each iteration makes a plain Torii call, a Torii
// call to a leased kubectl_context-style target, spawns the same program
// directly from Node, and calls a bare SDK server (bare-server.mjs) that
// spawns it. The figures are medians of the run-by-run differences, so a few
// ms are not lost in fork noise. Server CPU per call comes from /proc (the
// server's own utime + stime, children excluded) over the measured loop; each
// Torii figure has its own server process.
import { spawn } from "node:child_process";
import { BARE_SERVER, CLI, connect, cpuMsOf, since, targetConfig } from "./harness.mjs";
import { median, ms, pairedMedian } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const PROGRAM = "/bin/true";
const ARGS = ["get", "pods"];
const root = targetConfig(PROGRAM);
const env = { TORII_CONFIG_DIR: root };
const plainServer = await connect(process.execPath, [CLI], env);
const targetServer = await connect(process.execPath, [CLI], env);
const bareServer = await connect(process.execPath, [BARE_SERVER], { BARE_PROGRAM: PROGRAM });

function direct() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(PROGRAM, ARGS, { shell: false, stdio: ["ignore", "pipe", "pipe"] });
    child.on("error", reject);
    child.on("close", () => resolve(since(start)));
  });
}

async function timedCall(session, name, args) {
  const start = process.hrtime.bigint();
  const result = await session.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(JSON.stringify(result.structuredContent));
  return since(start);
}

const plainCall = () => timedCall(plainServer, "run", { args: ARGS });
const targetCall = () => timedCall(targetServer, "kube", { args: ARGS, target: "dev" });
const bareCall = () => timedCall(bareServer, "run", { args: ARGS });

for (let i = 0; i < 30; i += 1) {
  await plainCall();
  await targetCall();
  await direct();
  await bareCall();
}
const servers = { plain: plainServer, target: targetServer, bare: bareServer };
const cpuBefore = Object.fromEntries(Object.entries(servers).map(([name, session]) => [name, cpuMsOf(session.pid)]));
const samples = { plain: [], target: [], direct: [], bare: [] };
for (let i = 0; i < RUNS; i += 1) {
  samples.plain.push(await plainCall());
  samples.target.push(await targetCall());
  samples.direct.push(await direct());
  samples.bare.push(await bareCall());
}
const cpu = Object.fromEntries(Object.entries(servers).map(([name, session]) => [name, (cpuMsOf(session.pid) - cpuBefore[name]) / RUNS]));
for (const session of Object.values(servers)) await session.client.close();

console.log(`calls of ${PROGRAM} ${ARGS.join(" ")}, ${RUNS} paired iterations (torii plain, torii target, direct, bare SDK server)`);
console.log(`  medians: torii plain ${ms(median(samples.plain))}, torii target ${ms(median(samples.target))}, direct ${ms(median(samples.direct))}, bare server ${ms(median(samples.bare))}`);
console.log("  median of paired differences:");
console.log(`    plain call  - direct spawn:  ${ms(pairedMedian(samples.plain, samples.direct))}`);
console.log(`    bare server - direct spawn:  ${ms(pairedMedian(samples.bare, samples.direct))}`);
console.log(`    plain call  - bare server:   ${ms(pairedMedian(samples.plain, samples.bare))}`);
console.log(`    target call - direct spawn:  ${ms(pairedMedian(samples.target, samples.direct))}`);
console.log(`    target call - plain call:    ${ms(pairedMedian(samples.target, samples.plain))} (target <= 3 ms)`);
console.log("  server CPU per call (/proc utime+stime, audit included):");
console.log(`    torii plain ${ms(cpu.plain)}, torii target ${ms(cpu.target)}, bare server ${ms(cpu.bare)}`);
console.log(`    over the bare floor: plain +${ms(cpu.plain - cpu.bare)}, target +${ms(cpu.target - cpu.bare)} (target <= +1 ms)`);
