// Shared pieces of the server benchmarks: throw-away config roots (a provider
// for a trivial binary, a kubectl_context-style provider with a leased target,
// the four bundled providers), a real MCP client session over stdio, and what
// /proc says about a process (memory, CPU time).
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
export const BARE_SERVER = fileURLToPath(new URL("bare-server.mjs", import.meta.url));
export const FILESYSTEM_SERVER = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url));
const REPO = fileURLToPath(new URL("..", import.meta.url));
/** A built checkout to compare with, side by side in the same run (BENCH_BASELINE=<dir>): its dist/cli.js. */
export const baselineCli = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE, "dist/cli.js") : undefined;
/** The baseline checkout itself: its bundled providers are the ones its build can load. */
export const baselineRepo = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;

/** What a checkout's `torii` command runs: its package.json's `bin` (an operator's shell runs that; client registrations run dist/cli.js). */
function binOf(checkout) {
  return path.resolve(checkout, JSON.parse(readFileSync(path.join(checkout, "package.json"), "utf8")).bin.torii);
}
/** This checkout's `torii` bin. */
export const BIN = binOf(REPO);
/** This checkout's V8 code cache (src/runtime/code-cache/), beside the bin: the server and `target activate` start through it. */
const CODE_CACHE = path.join(path.dirname(BIN), "v8-cache");

/**
 * Runs `body` (a function, or one returning a promise) with the code cache
 * directory refused, then trusted again: made group-writable, the loader neither
 * reads nor writes it. What a first start (or a root-owned install started by
 * another user) costs.
 */
export function withoutCodeCache(body) {
  if (!existsSync(CODE_CACHE)) return body();
  const { mode } = statSync(CODE_CACHE);
  chmodSync(CODE_CACHE, mode | 0o020);
  const restore = () => chmodSync(CODE_CACHE, mode & 0o7777);
  let result;
  try {
    result = body();
  } catch (error) {
    restore();
    throw error;
  }
  if (result instanceof Promise) return result.finally(restore);
  restore();
  return result;
}
/** The baseline checkout's `torii` bin (BENCH_BASELINE=<dir>). */
export const baselineBin = baselineRepo === undefined ? undefined : binOf(baselineRepo);
export const BUNDLED_PROVIDERS = ["kubectl", "aws", "az", "gcloud"];

function writeTree(root, files) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
}

/**
 * A fresh owner-only directory for a bench's own programs, under ~/.cache/torii-bench:
 * Torii refuses to run a program from the shared temporary directory (anyone can
 * create files there first) or from below its working directory (the bench's, this
 * checkout: the agent's reach).
 */
export function privateBinDirectory() {
  const parent = path.join(os.homedir(), ".cache", "torii-bench");
  mkdirSync(parent, { recursive: true, mode: 0o755 });
  return mkdtempSync(path.join(parent, "bin-"));
}

/** A config root with one provider, `run`, whose command is `command` and whose rules accept everything. */
export function benchConfig(command, settings = "") {
  const root = mkdtempSync(path.join(os.tmpdir(), "torii-bench-"));
  writeTree(root, {
    "providers/run/provider.yaml": `version: "1"\nname: run\ntool: run\ncommand: ${JSON.stringify(command)}\n`,
    "providers/run/rules.yaml": 'version: "1"\naccept: ["/.*/"]\n',
  });
  if (settings !== "") writeFileSync(path.join(root, "settings.yaml"), settings);
  return root;
}

/**
 * `benchConfig(command)` plus `kube`, a kubectl_context provider running the
 * same `command` with one target, `dev` (context dev-ctx), leased for a day
 * through the real operator CLI.
 */
export function targetConfig(command) {
  const root = benchConfig(command);
  writeTree(root, {
    "providers/kube/provider.yaml": [
      'version: "1"',
      "name: kube",
      "tool: kube",
      `command: ${JSON.stringify(command)}`,
      "targeting:",
      "  mode: kubectl_context",
      "argv:",
      "  parser: pflag",
      "  options:",
      "    - {name: --namespace, short: -n, value: required}",
      "    - {name: --context, value: required}",
      "",
    ].join("\n"),
    "providers/kube/rules.yaml": 'version: "1"\naccept: [get]\n',
    "providers/kube/targets/dev/target.yaml": 'version: "1"\nname: dev\ncontext: dev-ctx\nidentity: {provider: run}\n',
  });
  const activated = spawnSync(process.execPath, [CLI, "target", "activate", "kube", "dev", "--for", "1440"], {
    env: { ...process.env, TORII_CONFIG_DIR: root },
    encoding: "utf8",
  });
  if (activated.status !== 0) throw new Error(`torii target activate failed: ${activated.stderr}`);
  return root;
}

/**
 * Copies the four bundled providers (provider.yaml and the empty rules.yaml) of
 * `repo` (this checkout by default; the baseline's for the baseline build) into `root`.
 */
export function installBundledProviders(root, repo = REPO) {
  for (const name of BUNDLED_PROVIDERS) {
    cpSync(path.join(repo, "providers", name), path.join(root, "providers", name), {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}presets`),
    });
  }
  return root;
}

export async function connect(command, args, env) {
  const transport = new StdioClientTransport({ command, args, env: { PATH: process.env.PATH, HOME: os.homedir(), ...env }, stderr: "ignore" });
  const client = new Client({ name: "torii-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, pid: transport.pid };
}

/** Milliseconds since `start` (a process.hrtime.bigint()). */
export function since(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** VmRSS and VmHWM of a process in KiB (Linux /proc). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

const TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/** User + system CPU time a process has used so far, in ms (Linux /proc/<pid>/stat utime + stime; children excluded). */
/** Minor page faults of a process so far (/proc/<pid>/stat field 10), children excluded. */
export function minorFaultsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[7]);
}

/** The pids of the children of `parent` whose command line has an argument ending in `suffix` (Linux /proc). */
export function childrenRunning(parent, suffix) {
  const found = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== parent) continue;
      if (
        readFileSync(`/proc/${entry}/cmdline`, "utf8")
          .split("\0")
          .some((arg) => arg.endsWith(suffix))
      )
        found.push(Number(entry));
    } catch {
      // The process ended while the table was read.
    }
  }
  return found;
}

export function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}
