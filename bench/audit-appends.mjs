// The audit's share of a call: appends (lock + write + fsync) per call, and
// time per call, one record per append (before) against a call's records
// batched (after), paired in one run.
//
// 1. The writer alone, per iteration: an allowed call's four records as four
//    appends, then batched (three before the spawn in one append, `ran` in
//    another), then as the server's writer now takes them (the three written
//    before the spawn, `ran` riding with the next call's, fsync and head once
//    a second; with BENCH_BASE_CLI the base build's writer too, paired); a
//    denied call's two records as two appends, then as one.
//    Wall and CPU time of this process, medians of the paired differences.
// 2. A real server over stdio (allowed and denied calls of /bin/true), with a
//    preload that counts its audit appends (writes to the log), audit lock
//    cycles (appends and head moves: a lock directory, file or linked token)
//    and fsyncs. With BENCH_BASE_CLI=<base checkout>/dist/cli.js the base server
//    runs too, its calls interleaved with this one's, and each server's CPU
//    time per call (/proc/<pid>/stat) is compared.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI } from "./harness.mjs";
import { median } from "./stats.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const { AuditLog } = await import(pathToFileURL(path.join(path.dirname(CLI), "audit/audit-log.js")).href);

const record = (callId, event, extra = {}) => ({ call_id: callId, scope: "run", event, argv_head: ["allowed"], ...extra });
const allowedRecords = (id) => [
  record(id, "invoke"),
  record(id, "allowed-by-rules", { source: "rules", rule: "allowed" }),
  record(id, "session-unchecked"),
  record(id, "ran", { exit_code: 0, duration_ms: 1 }),
];
const deniedRecords = (id) => [record(id, "invoke"), record(id, "denied-explicit", { source: "explicit-deny", rule: "denied" })];

async function timed(run) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await run();
  const used = process.cpuUsage(cpu);
  return { wall: Number(process.hrtime.bigint() - start) / 1e6, cpu: (used.user + used.system) / 1000 };
}

async function writerAlone() {
  const newLog = (Log) => new Log(path.join(mkdtempSync(path.join(os.tmpdir(), "torii-bench-audit-")), "audit.jsonl"), undefined, { report: () => undefined });
  const log = newLog(AuditLog);
  const serverLog = new AuditLog(path.join(mkdtempSync(path.join(os.tmpdir(), "torii-bench-audit-")), "audit.jsonl"), undefined, {
    report: () => undefined,
    headDelayMs: 1_000,
  });
  const BaseLog = process.env.BENCH_BASE_CLI
    ? (await import(pathToFileURL(path.join(path.dirname(process.env.BENCH_BASE_CLI), "audit/audit-log.js")).href)).AuditLog
    : undefined;
  const base = BaseLog ? newLog(BaseLog) : undefined;
  const baseServerLog = BaseLog
    ? new BaseLog(path.join(mkdtempSync(path.join(os.tmpdir(), "torii-bench-audit-")), "audit.jsonl"), undefined, {
        report: () => undefined,
        headDelayMs: 1_000,
      })
    : undefined;
  // As the server writes a call's records: the allow written before the spawn, `ran` riding with the next call's allow.
  const serverShape = (writer) => async (id) => {
    const records = allowedRecords(id);
    await writer.appendBatch(records.slice(0, 3), { deferSync: true });
    void writer.appendBatch([records[3]], { deferWrite: true });
  };
  const shapes = {
    ...(base
      ? {
          "allowed, base writer, per record (4)": (id) =>
            (async () => {
              for (const r of allowedRecords(id)) await base.append(r);
            })(),
        }
      : {}),
    "allowed, one append per record (4)": (id) =>
      (async () => {
        for (const r of allowedRecords(id)) await log.append(r);
      })(),
    "allowed, batched (2)": async (id) => {
      const records = allowedRecords(id);
      await log.appendBatch(records.slice(0, 3));
      await log.append(records[3]);
    },
    ...(baseServerLog ? { "allowed, base server writer (1, ran rides)": serverShape(baseServerLog) } : {}),
    "allowed, server writer (1, ran rides)": serverShape(serverLog),
    "denied, one append per record (2)": (id) =>
      (async () => {
        for (const r of deniedRecords(id)) await log.append(r);
      })(),
    "denied, batched (1)": (id) => log.appendBatch(deniedRecords(id)),
  };
  const samples = Object.fromEntries(Object.keys(shapes).map((name) => [name, []]));
  // Every other iteration runs the shapes in reverse: a shape run right after the fsyncing ones pays for them
  // (about 0.13 ms for the same writer twice in a fixed order), which a fixed order charged to one side of a pair.
  const order = Object.entries(shapes);
  for (let i = 0; i < RUNS + 20; i += 1) {
    for (const [name, shape] of i % 2 === 0 ? order : [...order].reverse()) {
      const sample = await timed(() => shape(`c${i}`));
      if (i >= 20) samples[name].push(sample);
    }
  }
  console.log(`the writer alone, ${RUNS} paired iterations (medians; wall | CPU of this process)`);
  for (const [name, list] of Object.entries(samples)) {
    console.log(`  ${name.padEnd(44)} ${median(list.map((s) => s.wall)).toFixed(3)} ms | ${median(list.map((s) => s.cpu)).toFixed(3)} ms`);
  }
  const pairs = [
    ["allowed, one append per record (4)", "allowed, batched (2)"],
    ["allowed, batched (2)", "allowed, server writer (1, ran rides)"],
    ["denied, one append per record (2)", "denied, batched (1)"],
    ...(base ? [["allowed, base writer, per record (4)", "allowed, batched (2)"]] : []),
    ...(baseServerLog ? [["allowed, base server writer (1, ran rides)", "allowed, server writer (1, ran rides)"]] : []),
  ];
  for (const [before, after] of pairs) {
    const wall = samples[before].map((s, i) => s.wall - samples[after][i].wall);
    const cpu = samples[before].map((s, i) => s.cpu - samples[after][i].cpu);
    console.log(`  "${before}" - "${after}" (median of paired differences): ${median(wall).toFixed(3)} ms wall, ${median(cpu).toFixed(3)} ms CPU`);
  }
}

/**
 * Counts, inside the server, its writes to the audit log (appends), the audit
 * locks it takes (each lock cycle: appends and head moves; a directory, then a
 * file, now a hard link of the writer's token) and its fsyncs. The server calls the synchronous fs functions and `fs.fsync` through
 * named ESM imports, so the preload patches the module object and then
 * `syncBuiltinESMExports()` makes the named imports see the patched functions.
 */
const PRELOAD = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const counts = { appends: 0, locks: 0, fsyncs: 0 };
const logFds = new Set();
const { openSync, closeSync, writeSync, mkdirSync, linkSync, fsync, fsyncSync } = fs;
fs.openSync = function (target, ...rest) {
  if (String(target).endsWith("audit.jsonl.lock")) counts.locks += 1;
  const fd = openSync.call(this, target, ...rest);
  if (String(target).endsWith("audit.jsonl")) logFds.add(fd);
  return fd;
};
fs.closeSync = function (fd) { logFds.delete(fd); return closeSync.call(this, fd); };
fs.writeSync = function (fd, ...rest) { if (logFds.has(fd)) counts.appends += 1; return writeSync.call(this, fd, ...rest); };
fs.mkdirSync = function (target, ...rest) { if (String(target).endsWith("audit.jsonl.lock")) counts.locks += 1; return mkdirSync.call(this, target, ...rest); };
fs.linkSync = function (source, target) { if (String(target).endsWith("audit.jsonl.lock")) counts.locks += 1; return linkSync.call(this, source, target); };
fs.fsync = function (...args) { counts.fsyncs += 1; return fsync.apply(this, args); };
fs.fsyncSync = function (...args) { counts.fsyncs += 1; return fsyncSync.apply(this, args); };
syncBuiltinESMExports();
process.on("exit", () => writeSync(2, "BENCH-COUNTS " + JSON.stringify(counts) + "\\n"));
`;

function serverRoot() {
  const root = mkdtempSync(path.join(os.tmpdir(), "torii-bench-"));
  mkdirSync(path.join(root, "providers/run"), { recursive: true });
  writeFileSync(path.join(root, "providers/run/provider.yaml"), 'version: "1"\nname: run\ntool: run\ncommand: /bin/true\n');
  writeFileSync(path.join(root, "providers/run/rules.yaml"), 'version: "1"\ndeny: [denied]\naccept: [allowed]\n');
  return root;
}

async function startServer(cli, preload) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", pathToFileURL(preload).href, cli],
    env: { PATH: process.env.PATH, HOME: os.homedir(), TORII_CONFIG_DIR: serverRoot() },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk) => (stderr += chunk));
  const client = new Client({ name: "torii-bench", version: "1.0.0" });
  await client.connect(transport);
  const cpuMs = () => {
    const fields = readFileSync(`/proc/${transport.pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, at USER_HZ 100
  };
  return {
    call: async (args) => {
      const start = process.hrtime.bigint();
      await client.callTool({ name: "run", arguments: { args } });
      return Number(process.hrtime.bigint() - start) / 1e6;
    },
    cpuMs,
    close: async () => {
      await client.close();
      // The server prints its counts as it exits.
      const deadline = Date.now() + 10_000;
      while (!/BENCH-COUNTS /.test(stderr) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return JSON.parse(/BENCH-COUNTS (.*)/.exec(stderr)?.[1] ?? '{"appends":NaN,"locks":NaN,"fsyncs":NaN}');
    },
  };
}

async function servers() {
  const preload = path.join(mkdtempSync(path.join(os.tmpdir(), "torii-bench-preload-")), "count.mjs");
  writeFileSync(preload, PRELOAD);
  const clis = { after: CLI, ...(process.env.BENCH_BASE_CLI ? { before: process.env.BENCH_BASE_CLI } : {}) };
  for (const kind of [["allowed"], ["denied"]]) {
    const running = Object.fromEntries(await Promise.all(Object.entries(clis).map(async ([name, cli]) => [name, await startServer(cli, preload)])));
    for (let i = 0; i < 20; i += 1) for (const server of Object.values(running)) await server.call(kind);
    const cpuStart = Object.fromEntries(Object.entries(running).map(([name, server]) => [name, server.cpuMs()]));
    const walls = Object.fromEntries(Object.keys(running).map((name) => [name, []]));
    for (let i = 0; i < RUNS; i += 1) for (const [name, server] of Object.entries(running)) walls[name].push(await server.call(kind));
    console.log(`\na real server, ${RUNS} ${kind[0]} calls of /bin/true${running.before ? ", interleaved with the base server's" : ""}`);
    for (const [name, server] of Object.entries(running)) {
      const cpu = (server.cpuMs() - cpuStart[name]) / RUNS;
      const counts = await server.close();
      const calls = RUNS + 20;
      console.log(
        `  ${name.padEnd(6)} ${(counts.appends / calls).toFixed(2)} appends/call, ${(counts.locks / calls).toFixed(2)} lock cycles/call, ${(counts.fsyncs / calls).toFixed(2)} fsyncs/call, ` +
          `round trip median ${median(walls[name]).toFixed(2)} ms, server CPU ${cpu.toFixed(2)} ms/call`,
      );
    }
    if (running.before) {
      const paired = walls.before.map((wall, i) => wall - walls.after[i]);
      console.log(`  round trip saved (median of paired differences): ${median(paired).toFixed(2)} ms`);
    }
  }
}

await writerAlone();
await servers();
