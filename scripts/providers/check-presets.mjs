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
const { compilePolicy } = await import(pathToFileURL(join(engine, "policy", "compile.js")).href);
const { evaluatePolicy } = await import(pathToFileURL(join(engine, "policy", "evaluate.js")).href);
const { lockedCommandsOf } = await import(pathToFileURL(join(engine, "config", "locked-floor.js")).href);

/** `argv.fetched_values` as src/config/provider-schema.ts maps it. */
const fetched = (f) => ({
  urlOptions: f.url_options ?? [],
  gitOptions: f.git_options ?? [],
  gitOperandsOf: f.git_operands_of ?? [],
  literal: (f.literal ?? []).map((r) => ({ command: r.command, option: r.option, list: r.list ?? false })),
});

/** Builds the policy context the config layer would build from provider.yaml. */
function load(name) {
  const p = parse(readFileSync(join(repo, "providers", name, "provider.yaml"), "utf8"));
  const opt = (o) => ({ name: o.name, short: o.short, value: o.value, repeatable: o.repeatable ?? false });
  const context = {
    tool: p.tool,
    grammar: {
      parser: p.argv.parser,
      options: p.argv.options.map(opt),
      commands: p.argv.commands.map((c) => ({ path: c.path, options: c.options.map(opt) })),
      forbiddenValuePrefixes: p.argv.forbidden_value_prefixes,
      ...(p.argv.fetched_values === undefined ? {} : { fetchedValues: fetched(p.argv.fetched_values) }),
      ...(p.argv.file_writes === undefined ? {} : { fileWrites: p.argv.file_writes }),
      ...(p.argv.plugins === undefined ? {} : { plugins: p.argv.plugins }),
      ...(p.targeting?.locked_values === undefined ? {} : { lockedValues: p.targeting.locked_values }),
    },
    lockedOptions: p.targeting?.locked_options ?? [],
    // The mode's command floor and the provider's own: the server refuses these before any rule.
    lockedCommands: lockedCommandsOf({
      ...p,
      targeting: { ...p.targeting, locked_commands: p.targeting?.locked_commands?.map((c) => ({ except: [], ...c })) },
    }),
    settings: {
      minimumAcceptTokens: p.policy.minimum_accept_tokens,
      forbiddenArgs: p.policy.forbidden_args,
      ignoreArgs: p.policy.ignore_args,
    },
  };
  const file = join("providers", name, "presets", "readonly.yaml");
  const rules = parse(readFileSync(join(repo, file), "utf8"));
  const specs = (list) => list.map((text, i) => ({ text, origin: `${file}#${i}` }));
  const policy = compilePolicy(context, { shared: { deny: specs(rules.deny), accept: specs(rules.accept) } });
  return policy;
}

const cases = JSON.parse(readFileSync(join(here, "preset-cases.json"), "utf8"));
let failed = 0;
let passed = 0;
for (const [name, list] of Object.entries(cases)) {
  const policy = load(name);
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
