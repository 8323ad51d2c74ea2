/**
 * `torii_policy`: the read-only policy query. Returns the effective rules of a
 * provider (and target), and with `args` the decision policy alone gives, the
 * deciding rule, the canonical argv and the narrowest grants for an unresolved
 * call. It reads rule files only: never an environment, a credential, grants
 * or leases, and it works for inactive targets.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { ConfigError } from "../config/errors.js";
import { exposedProviders } from "../config/exposure.js";
import type { Registry } from "../config/registry.js";
import { processPlaces } from "../pipeline/credential-places.js";
import type { PolicyCache } from "../pipeline/policy-cache.js";
import { effectivePolicyOf, explainWith } from "../policy/explain.js";
import { policyOutputSchema } from "./output-schemas.js";
import { argvSchema, oneOf, parseEnvelope } from "./provider-tool.js";
import { structuredResult } from "./result.js";
import { annotationsFor, inputJsonSchema, type ToolDefinition } from "./tool-definition.js";

export const POLICY_TOOL_NAME = "torii_policy";

export function policyTool(registry: Registry, policies: PolicyCache): ToolDefinition {
  const tools = exposedProviders(registry)
    .map((entry) => entry.tool)
    .sort();
  const provider = tools.length === 0 ? z.never({ error: "no provider is installed" }).meta({ type: "string" }) : oneOf(tools, "provider");
  const schema = z.strictObject({
    provider: provider.meta({ description: "The provider tool name." }),
    target: z.string().meta({ description: "A target alias of that provider (optional)." }).optional(),
    args: argvSchema("An argv to explain (optional).").optional(),
  });
  const title = "Show the operator's policy for a provider";
  return {
    name: POLICY_TOOL_NAME,
    title,
    description:
      "Read-only. Returns the effective deny and accept rules for a provider (and target). With `args`, also explains " +
      "what policy alone decides for that argv: deny, accept, or unresolved (a grant or the operator must decide), " +
      "the deciding rule, the canonical argv that would run, and the narrowest grant the operator could add. Call it before running a provider tool.",
    kind: "read-only",
    input: schema,
    inputSchema: inputJsonSchema(schema),
    outputSchema: policyOutputSchema,
    annotations: annotationsFor("read-only", title),
    call(rawArgs: unknown): Promise<CallToolResult> {
      const input = parseEnvelope(schema, rawArgs, POLICY_TOOL_NAME);
      const entry = registry.providers.get(input.provider);
      if (entry?.config.expose !== true) throw new Error("unreachable: provider validated above");
      if (input.target !== undefined && !entry.targets.has(input.target)) {
        const known = [...entry.targets.keys()].sort().join(", ") || "none configured";
        return Promise.resolve(
          structuredResult(`Unknown target ${JSON.stringify(input.target)} (targets: ${known}).`, { provider: input.provider, error: "unknown target" }, true),
        );
      }
      try {
        // One compiled policy serves both answers, shared with the provider tools' cache.
        const { policy } = policies.load(entry, input.target);
        const { tool, ...rest } = effectivePolicyOf(policy, input.target);
        const structured: Record<string, unknown> = { provider: tool, ...rest };
        if (input.args !== undefined) {
          const places = processPlaces(registry.root, input.target === undefined ? undefined : entry.targets.get(input.target)?.config.kubeconfig);
          const explanation: Record<string, unknown> = { ...explainWith(policy, input.args, input.target, places) };
          delete explanation.tool;
          delete explanation.target;
          structured.explain = explanation;
        }
        const summary =
          input.args === undefined ? `Policy for ${input.provider}.` : `Policy alone says: ${(structured.explain as { decision: string }).decision}.`;
        return Promise.resolve(structuredResult(summary, structured, false));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return Promise.resolve(structuredResult(`The policy could not be loaded: ${error.message}`, { provider: input.provider, error: error.message }, true));
      }
    },
  };
}
