/**
 * `torii policy check <tool> [target] -- <args…>`: what policy alone decides for
 * an argv, as JSON. Exit code 0 = accept, 1 = deny, 2 = unresolved (a grant or a
 * human would decide). Reads no environment, grants or leases.
 */
import { processPlaces } from "../../pipeline/credential-places.js";
import { explainWith } from "../../policy/explain.js";
import { OperatorError } from "../shared/operator-context.js";
import { loadPolicyFor } from "./policy-selection.js";

const EXIT_BY_DECISION = { accept: 0, deny: 1, unresolved: 2 } as const;

export function runPolicyCheck(tool: string, target: string | undefined, args: readonly string[] | undefined): number {
  if (args === undefined || args.length === 0) {
    throw new OperatorError("usage: torii policy check <tool> [target] -- <args…> (the arguments go after --)");
  }
  const selection = loadPolicyFor(tool, target);
  const kubeconfig = target === undefined ? undefined : selection.provider.targets.get(target)?.config.kubeconfig;
  const result = explainWith(selection.policy, args, target, processPlaces(selection.registry.root, kubeconfig));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return EXIT_BY_DECISION[result.decision];
}
