import { readFileSync } from "node:fs";
import { parse } from "/work/wt/evalfix8/node_modules/yaml/dist/index.js";
const D = "/work/wt/evalfix8/dist";
const { providerFileSchema, toGrammarSpec, toPolicySettings } = await import(D + "/config/provider-schema.js");
const { effectiveLockedOptions } = await import(D + "/config/locked-floor.js");
const { compilePolicy } = await import(D + "/policy/compile.js");
const { evaluatePolicy } = await import(D + "/policy/evaluate.js");
const config = providerFileSchema.parse(parse(readFileSync("/work/wt/evalfix8/providers/aws/provider.yaml", "utf8")));
const ctx = { tool: "aws", grammar: toGrammarSpec(config), lockedOptions: effectiveLockedOptions(config), settings: { ...toPolicySettings(config), forbiddenArgs: [] } };
const spec = (t, l) => t.map((text, i) => ({ text, origin: `${l}:${i}` }));
const policy = compilePolicy(ctx, { shared: { deny: spec(["ec2 run-instances --user-data", "configure"], "deny"), accept: spec(["ec2", "iot-data", "s3"], "acc") } });
for (const argv of JSON.parse(process.argv[2])) { const d = evaluatePolicy(policy, argv).decision; console.log(argv.join(" "), "=>", d.result, d.source, d.rule?.text ?? "", d.fileWrite ? JSON.stringify(d.fileWrite) : ""); }
