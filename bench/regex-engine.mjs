// Regex rules: the linear-time engine (RE2, re2js) against the JavaScript
// engine rules ran on before (issue 7), paired in one run. Run after `npm run build`.
//
// The "old" policy is the same compiled policy with every regex matcher
// replaced by the RegExp the old code built (`new RegExp(source, flags + "u")`
// on the x-stripped pattern), so both sides evaluate identical rules, argv and
// literal rules; iterations alternate between them. Prints medians and the
// new/old ratio for decision latency, per-rule compile time, and catastrophic
// patterns (old only on inputs short enough to finish).
import { compilePolicy } from "../dist/policy/compile.js";
import { evaluatePolicy } from "../dist/policy/evaluate.js";
import { stripExtended } from "../dist/policy/regex-extended.js";
import { compileRegexRule } from "../dist/policy/regex-rule.js";
import { formatMicros, median } from "./stats.mjs";

const context = {
  tool: "kubectl",
  grammar: { parser: "plain", forbiddenValuePrefixes: [], options: [], commands: [] },
  lockedOptions: [],
  settings: { minimumAcceptTokens: 1, forbiddenArgs: [], ignoreArgs: { leading: [], flags: [] } },
};

/** Rule texts an operator writes: anchors, alternation, classes, flags. */
const REGEX_SHAPES = [
  (i) => `/^get (pods|deployments|services)-${i}( |$)/`,
  (i) => `/--namespace=kube-system-${i}/`,
  (i) => `/^logs [a-z0-9-]+-${i} --tail=\\d{1,4}$/`,
  (i) => `/secret-${i}/i`,
  (i) => `/^ describe \\s node-${i} # a comment/x`,
];

function ruleSet(regexCount, literalCount) {
  const deny = [];
  const accept = [];
  for (let i = 0; i < regexCount; i += 1) (i % 3 === 0 ? deny : accept).push({ text: REGEX_SHAPES[i % REGEX_SHAPES.length](i), origin: `bench:${i}` });
  for (let i = 0; i < literalCount; i += 1) accept.push({ text: `verb${i} object${i}`, origin: `bench:l${i}` });
  accept.push({ text: "get pods", origin: "bench:hit" });
  return { shared: { deny, accept } };
}

const oldMatcher = (matcher) => new RegExp(matcher.source, `${matcher.flags}u`);
const withOldEngine = (policy) => {
  const swap = (index) => ({ ...index, regex: index.regex.map((rule) => ({ ...rule, regex: oldMatcher(rule.regex) })) });
  return { ...policy, deny: swap(policy.deny), accept: swap(policy.accept) };
};

function argvOf(length) {
  const argv = ["get", "pods"];
  for (let i = 0; argv.length < length; i += 1) argv.push(`web-${i.toString(16).padStart(6, "0")}`);
  return argv;
}

/** Alternating timed runs of two thunks; returns the two sample arrays (ns). */
function paired(oldRun, newRun, iterations) {
  for (let i = 0; i < 500; i += 1) {
    oldRun();
    newRun();
  }
  const oldSamples = new Float64Array(iterations);
  const newSamples = new Float64Array(iterations);
  for (let i = 0; i < iterations; i += 1) {
    const order =
      i % 2 === 0
        ? [
            [oldRun, oldSamples],
            [newRun, newSamples],
          ]
        : [
            [newRun, newSamples],
            [oldRun, oldSamples],
          ];
    for (const [run, samples] of order) {
      const start = process.hrtime.bigint();
      run();
      samples[i] = Number(process.hrtime.bigint() - start);
    }
  }
  return { old: median(oldSamples), new: median(newSamples) };
}

const row = (label, result) =>
  console.log(
    `${label.padEnd(44)} ${formatMicros(result.old).padStart(12)} ${formatMicros(result.new).padStart(12)} ${(result.new / result.old).toFixed(2).padStart(7)}×`,
  );

console.log(`${"decision latency (median of 5,000 paired)".padEnd(44)} ${"JS RegExp".padStart(12)} ${"RE2 (re2js)".padStart(12)} ${"new/old".padStart(8)}`);
for (const [regexCount, literalCount] of [
  [10, 0],
  [100, 1000],
  [1000, 0],
]) {
  const policy = compilePolicy(context, ruleSet(regexCount, literalCount));
  if (policy.errors.length > 0) throw new Error(JSON.stringify(policy.errors));
  const old = withOldEngine(policy);
  for (const length of [3, 30]) {
    const argv = argvOf(length);
    const check = (result) => {
      if (result.decision.result !== "accept") throw new Error(`unexpected ${result.decision.source}`);
    };
    row(
      `${regexCount} regex + ${literalCount} literal rules, ${length} tokens`,
      paired(
        () => check(evaluatePolicy(old, argv)),
        () => check(evaluatePolicy(policy, argv)),
        5000,
      ),
    );
  }
}

console.log("\ncompile one regex rule (median of 2,000 paired)");
const texts = REGEX_SHAPES.map((shape) => shape(7));
row(
  "5 rule shapes, each compiled",
  paired(
    () => texts.forEach((text) => new RegExp(/x$/u.test(text) ? stripExtended(text.slice(1, -2)) : text.slice(1, text.lastIndexOf("/")), "u")),
    () => texts.forEach((text) => compileRegexRule(text, "accept")),
    2000,
  ),
);

console.log("\ncatastrophic rule /^(a+)+$/ on 'a'×n + '!' (one test each; old only where it finishes)");
const catastrophic = compileRegexRule("/^(a+)+$/", "deny");
const oldCatastrophic = oldMatcher(catastrophic);
for (const n of [16, 20, 24, 4096, 65536]) {
  const subject = `${"a".repeat(n)}!`;
  const time = (run) => {
    const start = process.hrtime.bigint();
    run();
    return Number(process.hrtime.bigint() - start);
  };
  const newTime = median(Array.from({ length: 5 }, () => time(() => catastrophic.test(subject))));
  const oldTime = n <= 24 ? time(() => oldCatastrophic.test(subject)) : Number.NaN;
  console.log(
    `n=${String(n).padEnd(6)} old ${Number.isNaN(oldTime) ? "(hangs: 2^n steps)".padStart(18) : formatMicros(oldTime).padStart(18)}   new ${formatMicros(newTime).padStart(12)}`,
  );
}
