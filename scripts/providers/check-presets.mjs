#!/usr/bin/env node
// Evaluates sample agent argvs against each provider's presets/readonly.yaml with
// Torii's own policy engine, so a preset is checked in the canonical form the
// engine really produces (options sorted after positionals, shorts resolved).
//
//   npm run build && node scripts/providers/check-presets.mjs
//   node scripts/providers/check-presets.mjs --engine /tmp/pol   # another compiled src/ tree
//
// Cases: scripts/providers/preset-cases.json, `[argv, expected]` per provider, where
// expected is `accept`, `unresolved`, `deny` (any source) or `deny:<source>`.

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "yaml";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..", "..");
const at = process.argv.indexOf("--engine");
const engine = resolve(at === -1 ? join(repo, "dist") : process.argv[at + 1]);
const load = (module) => import(pathToFileURL(join(engine, ...module.split("/"))).href);
const { compilePolicy } = await load("policy/compile.js");
const { evaluatePolicy } = await load("policy/evaluate.js");
const { loadProviderDocument } = await load("config/provider-schema.js");
const { providerPolicyContext } = await load("config/policy-context.js");

/**
 * The provider's readonly preset compiled against the policy context the
 * server builds (config/policy-context.ts: generated tables, floors, locked
 * options), so a preset is never checked against a grammar the server does not use.
 */
function presetPolicy(name) {
  const provider = loadProviderDocument(join(repo, "providers", name, "provider.yaml")).value;
  const file = join("providers", name, "presets", "readonly.yaml");
  const rules = parse(readFileSync(join(repo, file), "utf8"));
  const specs = (list) => list.map((text, i) => ({ text, origin: `${file}#${i}` }));
  return compilePolicy(providerPolicyContext(provider), { shared: { deny: specs(rules.deny), accept: specs(rules.accept) } });
}

const cases = JSON.parse(readFileSync(join(here, "preset-cases.json"), "utf8"));
let failed = 0;
let passed = 0;
for (const [name, list] of Object.entries(cases)) {
  const policy = presetPolicy(name);
  for (const e of policy.errors) {
    failed += 1;
    console.log(`FAIL ${name}: rule ${JSON.stringify(e.ref.text)} does not compile: ${e.message}`);
  }
  for (const [argv, expected] of list) {
    const { decision, canonicalTokens } = evaluatePolicy(policy, argv);
    const got = decision.result === "deny" ? `deny:${decision.source}` : decision.result;
    const ok = got === expected || (expected === "deny" && decision.result === "deny");
    if (ok) passed += 1;
    else failed += 1;
    if (!ok || process.argv.includes("--verbose")) {
      console.log(`${ok ? "ok  " : "FAIL"} ${name} ${JSON.stringify(argv)} -> ${got} (want ${expected})`);
      console.log(`     canonical: ${canonicalTokens ? canonicalTokens.join(" ") : "-"}; ${decision.reason}`);
    }
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
