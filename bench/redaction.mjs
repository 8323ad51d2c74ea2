// Redaction cost per MB of output, this build against a baseline build, paired
// in one run (CPU time of this process, robust to other load). Usage:
//   node bench/redaction.mjs [baseline-dist]   (default /tmp/base-s10/dist; run `npm run build` first)
// Texts: ordinary log lines; JSON full of escapes; text made of the characters
// that start an escape (`\`, `%`, `&`) or keep several spellings alive (quotes).
// Values: five .env-like secrets, one of them with quotes and non-ASCII.
import { pathToFileURL } from "node:url";
import { median, pairedRatio } from "./stats.mjs";

const baseDist = process.argv[2] ?? "/tmp/base-s10/dist";
const current = await import(new URL("../dist/runtime/redaction.js", import.meta.url).href);
const baseline = await import(pathToFileURL(`${baseDist}/runtime/redaction.js`).href);

const SECRETS = [
  { name: "API_TOKEN", value: "sk_live_9f8e7d6c5b4a3f2e1d0c" },
  { name: "DB_PASSWORD", value: "p&ss<w>rd'é/x!*q" },
  { name: "AWS_SECRET_ACCESS_KEY", value: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
  { name: "WEBHOOK", value: "https://hooks.example/T000/B000/XXXXXXXX" },
  { name: "REGION_PATH", value: "/var/lib/app/eu-west-1" },
];
const MB = 1_000_000;
const fill = (line) => line.repeat(Math.ceil(MB / line.length)).slice(0, MB);
const TEXTS = {
  "log lines": fill('2026-11-30T20:00:00Z INFO request id=4f1c path=/api/v1/items status=200 user="alice" took=12ms\n'),
  "JSON escapes": fill('{"msg":"a \\"quoted\\" \\u00e9 value","url":"https:\\/\\/x\\/y?a=1&b=%20"}\n'),
  "escape starters": fill("\\%&\\u%2&#x"),
  quotes: fill("''''\"\"''"),
  // Red team F7: a value's spelling over and over, each ending one character short.
  "near misses": fill("sk_live_9f8e7d6c5b4a3f2e1dX "),
  "UTF-16 log lines": fill("2026-11-30T20:00:00Z INFO status=200\n".replace(/./gsu, "$&\u0000")),
};

function cpuMs(fn) {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const ROUNDS = 7;
for (const [name, text] of Object.entries(TEXTS)) {
  const now = current.createRedactor(SECRETS);
  const before = baseline.createRedactor(SECRETS);
  now.redact(text.slice(0, 10_000));
  before.redact(text.slice(0, 10_000));
  const a = [];
  const b = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    a.push(cpuMs(() => now.redact(text)));
    b.push(cpuMs(() => before.redact(text)));
  }
  console.log(
    `${name.padEnd(16)} per MB: baseline ${median(b).toFixed(1)} ms, now ${median(a).toFixed(1)} ms CPU (now/baseline ${pairedRatio(a, b).toFixed(2)}×)`,
  );
}

// Building the redactor happens once per call that injects secrets.
const BUILDS = 200;
const build = (module) =>
  cpuMs(() => {
    for (let i = 0; i < BUILDS; i += 1) module.createRedactor(SECRETS);
  });
build(current);
build(baseline);
const a = [];
const b = [];
for (let round = 0; round < ROUNDS; round += 1) {
  a.push(build(current) / BUILDS);
  b.push(build(baseline) / BUILDS);
}
console.log(
  `building one redactor (5 values): baseline ${(median(b) * 1000).toFixed(0)} µs, now ${(median(a) * 1000).toFixed(0)} µs CPU (now/baseline ${pairedRatio(a, b).toFixed(2)}×)`,
);

// Red team residual 4: 200 PEM-wrapped values (one shared header and DER prefix), a fresh set each round
// (the compiled patterns of a set are kept between calls): building the redactor, then one printed key in a
// log, then all 200 keys printed. Run once each (the baseline took seconds to minutes).
const PEM_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function pemSet(seed) {
  let state = seed;
  return Array.from({ length: 200 }, (_, i) => {
    let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQ";
    while (body.length < 1600) {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      body += PEM_ALPHABET[(state >>> 16) % 64];
    }
    return { name: `KEY_${i}`, value: `-----BEGIN PRIVATE KEY-----\n${body.match(/.{1,64}/gu).join("\n")}\n-----END PRIVATE KEY-----\n` };
  });
}
const pemTimes = (module, seed, all) => {
  const keys = pemSet(seed);
  let redactor;
  const buildMs = cpuMs(() => (redactor = module.createRedactor(keys)));
  const oneMs = cpuMs(() => redactor.redact(`${"log line\n".repeat(500)}${keys[7].value}done\n`));
  const allMs = all ? cpuMs(() => redactor.redact(keys.map((key) => `${key.value}log line\n`).join(""))) : NaN;
  return `build ${buildMs.toFixed(0)} ms, one key printed ${oneMs.toFixed(0)} ms, all 200 printed ${all ? `${allMs.toFixed(0)} ms` : "(skipped)"}`;
};
console.log(`200 PEM values, now:      ${pemTimes(current, 1, true)}`);
console.log(`200 PEM values, baseline: ${pemTimes(baseline, 2, process.env.BENCH_PEM_BASELINE_ALL === "1")}`);
