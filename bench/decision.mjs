// Decision latency of the policy engine (canonicalisation + evaluation) for
// 10, 1,000 and 10,000 rules and argv of 3 and 30 tokens. Run after `npm run build`.
// Prints p50 and p99 per case in microseconds, plus the compile time of each rule set
// (rules are re-read on every call, so compiling is on the call path too).
import { readFileSync } from "node:fs";
import { compilePolicy } from "../dist/policy/compile.js";
import { evaluatePolicy } from "../dist/policy/evaluate.js";
import { formatMicros, quantile } from "./stats.mjs";

const AWS_GLOBALS = ["--debug", "--no-paginate", "--no-cli-pager", "--no-verify-ssl", "--no-sign-request"]
  .map((name) => ({ name, value: "none", repeatable: false }))
  .concat(
    ["--output", "--query", "--profile", "--region", "--endpoint-url", "--ca-bundle", "--color"].map((name) => ({
      name,
      value: "required",
      repeatable: false,
    })),
  );

const context = {
  tool: "aws",
  grammar: { parser: "argparse", forbiddenValuePrefixes: ["file://", "fileb://"], options: AWS_GLOBALS, commands: [] },
  lockedOptions: ["--profile", "--region", "--endpoint-url", "--no-sign-request", "--ca-bundle", "--no-verify-ssl"],
  settings: {
    minimumAcceptTokens: 2,
    forbiddenArgs: ["--debug"],
    ignoreArgs: { leading: [], flags: ["--output"] },
    // As the bundled aws provider declares them (a call with one is read as carrying every option).
    parameterCarriers: ["--cli-input-json", "--cli-input-yaml"],
  },
};

const SERVICES = 300;

/** N rules spread over 300 services, one in ten a deny, a few regexes, like a large real policy. */
function ruleSet(count) {
  const deny = [];
  const accept = [];
  for (let i = 0; i < count; i += 1) {
    const service = `svc${i % SERVICES}`;
    const text = i % 97 === 0 ? `/^${service} op${i}-[a-z]+/` : `${service} op${i}`;
    (i % 10 === 0 ? deny : accept).push({ text, origin: `bench:${i}` });
  }
  // The rules the benchmark argv hits: an accept of the operation.
  accept.push({ text: "ec2 describe-instances", origin: "bench:hit" });
  return { shared: { deny, accept } };
}

function argvOf(length) {
  if (length === 3) return ["ec2", "describe-instances", "--output=json"];
  const argv = ["ec2", "describe-instances", "--output", "json", "--instance-ids"];
  for (let i = 0; argv.length < length; i += 1) argv.push(`i-${i.toString(16).padStart(8, "0")}`);
  return argv;
}

function measure(policy, argv, iterations) {
  for (let i = 0; i < 2000; i += 1) evaluatePolicy(policy, argv);
  const samples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i += 1) {
    const start = process.hrtime.bigint();
    const result = evaluatePolicy(policy, argv);
    samples[i] = Number(process.hrtime.bigint() - start);
    if (result.decision.result !== "accept") throw new Error(`unexpected decision ${result.decision.source}`);
  }
  return samples;
}

const rows = [];
for (const count of [10, 1000, 10000]) {
  const specs = ruleSet(count);
  const compileSamples = [];
  let policy;
  for (let i = 0; i < 20; i += 1) {
    const start = process.hrtime.bigint();
    policy = compilePolicy(context, specs);
    compileSamples.push(Number(process.hrtime.bigint() - start));
  }
  for (const length of [3, 30]) {
    const samples = measure(policy, argvOf(length), 20000);
    rows.push({ rules: count, tokens: length, p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), compile: quantile(compileSamples, 0.5) });
  }
}

console.log("decision latency (canonicalise + evaluate), 20,000 calls per case");
console.log("rules   argv   p50          p99          compile (median of 20)");
for (const row of rows) {
  console.log(
    `${String(row.rules).padEnd(7)} ${String(row.tokens).padEnd(6)} ${formatMicros(row.p50).padEnd(12)} ${formatMicros(row.p99).padEnd(12)} ${formatMicros(row.compile)}`,
  );
}
const at = (rules) => rows.filter((row) => row.rules === rules).map((row) => row.p50);
console.log(
  `targets: p50 <= 20 µs at 1,000 rules (max measured ${formatMicros(Math.max(...at(1000)))}), <= 100 µs at 10,000 (max measured ${formatMicros(Math.max(...at(10000)))})`,
);

// The worst resource reading of one kubectl call (red-team F3): `get a,a,…(32,000) n ×1,000`,
// ~65 kB, read as 32 million types × names. Counted before anything is built, it is refused
// ("split the call") in about the time it takes to scan the argv. TORII_BENCH_DIST points at
// another build's dist/ to compare (e.g. a build of the commit before the fix).
const dist = process.env.TORII_BENCH_DIST ?? new URL("../dist/", import.meta.url).pathname;
const { providerFileSchema, toGrammarSpec, toPolicySettings } = await import(`${dist}/config/provider-schema.js`);
const { effectiveLockedOptions } = await import(`${dist}/config/locked-floor.js`);
const { compilePolicy: compileWith } = await import(`${dist}/policy/compile.js`);
const { evaluatePolicy: evaluateWith } = await import(`${dist}/policy/evaluate.js`);
// The provider table beside that dist/ (its schema reads its own table).
const kubectlFile = JSON.parse(readFileSync(`${dist}/../providers/kubectl/provider.generated.json`, "utf8")).document;
const kubectlConfig = providerFileSchema.parse(kubectlFile);
const kubectlPolicy = compileWith(
  { tool: "kubectl", grammar: toGrammarSpec(kubectlConfig), lockedOptions: effectiveLockedOptions(kubectlConfig), settings: toPolicySettings(kubectlConfig) },
  { shared: { deny: [{ text: "get secrets prod-db", origin: "bench:deny" }], accept: [{ text: "get", origin: "bench:accept" }] } },
);
const worstArgv = ["get", Array.from({ length: 32_000 }, () => "a").join(","), ...Array.from({ length: 1000 }, () => "n")];
const cpuBefore = process.cpuUsage();
const worst = evaluateWith(kubectlPolicy, worstArgv).decision;
const cpuUsed = process.cpuUsage(cpuBefore);
console.log(
  `kubectl worst resource reading (32,000 types × 1,000 names): ${((cpuUsed.user + cpuUsed.system) / 1000).toFixed(1)} ms CPU, ${worst.result} (${worst.reason.includes("split the call") ? "split the call" : worst.source})`,
);
