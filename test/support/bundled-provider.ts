/**
 * A bundled provider's read-only preset (providers/<name>/presets/readonly.yaml)
 * compiled against its policy context as the registry builds it
 * (policy-helpers.ts `bundledPolicyContext`).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { compilePolicy, type CompiledPolicy } from "../../src/policy/compile.js";
import { evaluatePolicy } from "../../src/policy/evaluate.js";
import { bundledPolicyContext } from "./policy-helpers.js";

/** The bundled provider `name`'s read-only preset (providers/<name>/presets/readonly.yaml), compiled as shared rules. */
export function readonlyPresetPolicy(name: string): CompiledPolicy {
  const file = fileURLToPath(new URL(`../../providers/${name}/presets/readonly.yaml`, import.meta.url));
  const rules = parse(readFileSync(file, "utf8")) as { deny: string[]; accept: string[] };
  const specs = (list: readonly string[]) => list.map((text, i) => ({ text, origin: `${name}/presets/readonly.yaml#${String(i)}` }));
  return compilePolicy(bundledPolicyContext(name), { shared: { deny: specs(rules.deny), accept: specs(rules.accept) } });
}

/** A decider over the bundled read-only preset of `name`: the decision's result for an argv (a preset that does not compile throws). */
export function readonlyPresetDecider(name: string): (argv: readonly string[]) => string {
  const policy = readonlyPresetPolicy(name);
  if (policy.errors.length > 0) throw new Error(`${name} read-only preset does not compile: ${JSON.stringify(policy.errors)}`);
  return (argv) => evaluatePolicy(policy, argv).decision.result;
}
