// Per-call overhead, paired: each iteration makes a plain Torii call, a Torii
// call to a leased kubectl_context-style target, spawns the same program
// directly from Node, and calls a bare SDK server (bare-server.mjs) that
// spawns it, in a random order per iteration. The figures are medians of the run-by-run differences, so a few
// ms are not lost in fork noise. Server CPU per call comes from /proc (the
// server's own utime + stime, children excluded) over the measured loop; each
// Torii figure has its own server process. A build with a child host (the
// server's child running dist/server/child-host.js, which forks the calls) has
// its CPU read the same way and added: the server's figure is never printed
// without the sum beside it. With BENCH_BASELINE=<checkout>
// (built), the same calls go to that build's dist/cli.js too, in the same loop.
import { spawn } from "node:child_process";
import { BARE_SERVER, baselineCli, childrenRunning, CLI, connect, cpuMsOf, memoryOf, minorFaultsOf, since, targetConfig } from "./harness.mjs";
import { median, ms, pairedMedian } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const PROGRAM = "/bin/true";
const ARGS = ["get", "pods"];
const root = targetConfig(PROGRAM);
const env = { TORII_CONFIG_DIR: root };
const builds = { torii: CLI, ...(baselineCli === undefined ? {} : { before: baselineCli }) };

async function server(args, serverEnv, name, extra = {}) {
  const session = await connect(process.execPath, args, serverEnv);
  return { session, name, arguments: { args: ARGS, ...extra } };
}

const servers = {};
for (const [build, cli] of Object.entries(builds)) {
  servers[`${build} plain`] = await server([cli], env, "run");
  servers[`${build} target`] = await server([cli], env, "kube", { target: "dev" });
}
servers.bare = await server([BARE_SERVER], { BARE_PROGRAM: PROGRAM }, "run");

function direct() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(PROGRAM, ARGS, { shell: false, stdio: ["ignore", "pipe", "pipe"] });
    child.on("error", reject);
    child.on("close", () => resolve(since(start)));
  });
}

async function timedCall({ session, name, arguments: args }) {
  const start = process.hrtime.bigint();
  const result = await session.client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(JSON.stringify(result.structuredContent));
  return since(start);
}

const order = Object.keys(servers).filter((key) => key !== "bare");
const steps = [
  ...order.map((key) => async (samples) => samples[key]?.push(await timedCall(servers[key]))),
  async (samples) => samples.direct?.push(await direct()),
  async (samples) => samples.bare?.push(await timedCall(servers.bare)),
];

/** A fresh random order (Fisher-Yates). */
function shuffled(items) {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

// A fixed order favours some positions: the same build measured in two slots differed by
// 2-4 ms of CPU per call. Each iteration runs its calls in a fresh random order.
async function iteration(samples) {
  for (const step of shuffled(steps)) await step(samples);
}

/** The server's child host, once a call has started it (undefined for a build or server without one). */
function hostOf(serverPid) {
  const hosts = childrenRunning(serverPid, "child-host.js");
  if (hosts.length > 1) throw new Error(`server ${serverPid} has ${hosts.length} child hosts`);
  return hosts[0];
}

/** CPU ms and minor faults of the server and of its host, as one snapshot. */
function usage(serverPid, hostPid) {
  return {
    server: { cpu: cpuMsOf(serverPid), faults: minorFaultsOf(serverPid) },
    host: hostPid === undefined ? { cpu: 0, faults: 0 } : { cpu: cpuMsOf(hostPid), faults: minorFaultsOf(hostPid) },
  };
}

const emptySamples = () => Object.fromEntries([...Object.keys(servers), "direct"].map((key) => [key, []]));
// Warm-up: the steps push with `samples[key]?.push(await …)`, which skips the call itself when there is no array.
for (let i = 0; i < 30; i += 1) await iteration(emptySamples());
const hosts = Object.fromEntries(Object.entries(servers).map(([key, { session }]) => [key, hostOf(session.pid)]));
const before = Object.fromEntries(Object.entries(servers).map(([key, { session }]) => [key, usage(session.pid, hosts[key])]));
const samples = emptySamples();
for (let i = 0; i < RUNS; i += 1) await iteration(samples);
const per = (after, start) => ({ cpu: (after.cpu - start.cpu) / RUNS, faults: (after.faults - start.faults) / RUNS });
const cost = Object.fromEntries(
  Object.entries(servers).map(([key, { session }]) => {
    // A host that exited or was replaced during the loop would leave its CPU out of the sum.
    if (hostOf(session.pid) !== hosts[key])
      throw new Error(`the child host of ${key} changed during the measured loop (${hosts[key]} -> ${hostOf(session.pid)})`);
    const after = usage(session.pid, hosts[key]);
    const server = per(after.server, before[key].server);
    const host = per(after.host, before[key].host);
    return [key, { server, host, sum: server.cpu + host.cpu, hostRssKiB: hosts[key] === undefined ? undefined : memoryOf(hosts[key]).rss }];
  }),
);
for (const { session } of Object.values(servers)) await session.client.close();

console.log(`calls of ${PROGRAM} ${ARGS.join(" ")}, ${RUNS} paired iterations (${[...order, "direct", "bare SDK server"].join(", ")})`);
console.log(
  `  medians: ${Object.entries(samples)
    .map(([key, values]) => `${key} ${ms(median(values))}`)
    .join(", ")}`,
);
const bare = cost.bare.sum;
console.log(
  `  bare server - direct spawn: ${ms(pairedMedian(samples.bare, samples.direct))}; server CPU per call (/proc utime+stime): bare ${ms(bare)}, ${cost.bare.server.faults.toFixed(0)} faults per call`,
);
const signed = (value) => `${value < 0 ? "-" : "+"}${ms(Math.abs(value))}`;
/** "server S + host H = T (+D over bare)", the way every Torii CPU figure is printed. */
function cpuLine({ server, host, sum }) {
  return `server ${ms(server.cpu)} + host ${ms(host.cpu)} = ${ms(sum)} (${signed(sum - bare)} over bare; server alone ${signed(server.cpu - bare)}), faults per call: server ${server.faults.toFixed(0)}, host ${host.faults.toFixed(0)}`;
}
for (const build of Object.keys(builds)) {
  const plain = samples[`${build} plain`];
  const target = samples[`${build} target`];
  console.log(`  ${build === "torii" ? "this build" : "baseline (BENCH_BASELINE)"}, median of paired differences:`);
  console.log(`    plain call  - direct spawn: ${ms(pairedMedian(plain, samples.direct))}`);
  console.log(`    plain call  - bare server:  ${ms(pairedMedian(plain, samples.bare))}`);
  console.log(`    target call - direct spawn: ${ms(pairedMedian(target, samples.direct))}`);
  console.log(`    target call - plain call:   ${ms(pairedMedian(target, plain))} (target <= 3 ms)`);
  console.log(`    CPU per call (audit included; target <= +1 ms over bare): plain: ${cpuLine(cost[`${build} plain`])}`);
  console.log(`      target: ${cpuLine(cost[`${build} target`])}`);
  const rss = cost[`${build} plain`].hostRssKiB;
  console.log(`    child host idle RSS: ${rss === undefined ? "no child host" : `${(rss / 1024).toFixed(1)} MiB`}`);
}
