/**
 * One MCP tool per provider. Input: `{args, description?, target}` and nothing
 * else; `target` (for target-aware providers) is an enum of every configured
 * alias, active or not, so the agent can name but never define a target.
 * The envelope is validated here, strictly, before the pipeline starts.
 */
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import type { ProviderEntry } from "../config/registry.js";
import type { CallOutcome } from "../pipeline/call-types.js";
import type { ProviderCall } from "../pipeline/invoke.js";
import type { CallAudit } from "../pipeline/call-audit.js";
import { callResult } from "./result.js";
import { providerCallOutputSchema } from "./output-schemas.js";
import { sanitiseDescription } from "../runtime/display-text.js";
import { annotationsFor, inputJsonSchema, type CallContext, type ToolDefinition } from "./tool-definition.js";

/** Bounds on the argv an agent may send (the OS limit is larger; these keep memory and regex time small). */
export const ENVELOPE_LIMITS = { maxArgs: 1024, maxArgLength: 65_536, maxTotalLength: 262_144, maxDescription: 500 } as const;

export interface ProviderToolDeps {
  /** Runs the pipeline for a validated call (with the concurrency limit applied). */
  run(call: ProviderCall): Promise<CallOutcome>;
  /** A per-call audit recorder. */
  auditFor(callId: string, scope: string): CallAudit;
  newCallId(): string;
}

/**
 * The envelope: `args`, an optional `description` and, for a target-aware
 * provider, `target` as an enum of every alias (with none configured, a string
 * schema no value satisfies). The advertised JSON Schema is derived from it.
 */
function envelopeSchema(provider: ProviderEntry) {
  const aliases = [...provider.targets.keys()].sort();
  const args = argvSchema(`Arguments for ${provider.config.command}, one array element per argument, without the program name. Never a shell command line.`);
  const description = z
    .string()
    .max(ENVELOPE_LIMITS.maxDescription)
    .meta({ description: "Why you are running this (shown to the operator; never used to decide)." })
    .optional();
  if (!provider.targetAware) return z.strictObject({ args, description });
  const target =
    aliases.length === 0
      ? z.never({ error: "target must be one of: (none configured)" }).meta({ type: "string", description: "No target is configured for this provider." })
      : oneOf(aliases, "target").meta({ description: "The operator-defined target alias. An alias may be inactive; do not retry with another." });
  return z.strictObject({ args, description, target });
}

/**
 * An argv as an agent may send it, within ENVELOPE_LIMITS. The total length is
 * a refinement JSON Schema cannot express, so `description` gets it appended.
 */
export function argvSchema(description: string): z.ZodArray<z.ZodString> {
  // The total counts characters as `maxLength` (and zod's max) count them, code points, not UTF-16 units:
  // a client that checks each item against the advertised schema must not be refused by another count.
  return z
    .array(z.string().max(ENVELOPE_LIMITS.maxArgLength))
    .min(1)
    .max(ENVELOPE_LIMITS.maxArgs)
    .refine((list) => list.reduce((total, arg) => total + codePoints(arg), 0) <= ENVELOPE_LIMITS.maxTotalLength, {
      error: `args may hold at most ${ENVELOPE_LIMITS.maxTotalLength} characters in total`,
    })
    .meta({ description: `${description} At most ${ENVELOPE_LIMITS.maxTotalLength} characters in total.` });
}

/** The number of code points in `text` (its lone surrogates, which the transport refuses, count one each). */
function codePoints(text: string): number {
  let count = text.length;
  for (let index = 0; index < text.length - 1; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        index += 1;
      }
    }
  }
  return count;
}

/** A zod enum of `names` (at least one) whose error lists them: `field must be one of: a, b`. */
export function oneOf(names: readonly string[], field: string): z.ZodEnum<Record<string, string>> {
  const [first, ...rest] = names;
  if (first === undefined) throw new Error(`oneOf: no ${field} to choose from`);
  return z.enum([first, ...rest], { error: `${field} must be one of: ${names.join(", ")}` });
}

/** Throws InvalidParams with the issues (paths and messages, never the values). */
export function parseEnvelope<T>(schema: z.ZodType<T>, args: unknown, tool: string): T {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(arguments)"}: ${issue.message}`).join("; ");
  throw new McpError(ErrorCode.InvalidParams, `invalid arguments for ${tool}: ${issues}`);
}

export function providerTool(provider: ProviderEntry, deps: ProviderToolDeps): ToolDefinition {
  const title = `Run ${provider.config.command} (policy-gated)`;
  const schema = envelopeSchema(provider);
  return {
    name: provider.tool,
    title,
    description:
      `${provider.config.description || `Run ${provider.config.command}`}\n` +
      `Pass the arguments as an array (no shell, no program name). Every call is checked against the operator's policy; ` +
      `call torii_policy first to see what is allowed.` +
      (provider.targetAware ? ` Name the target alias the operator configured; an inactive alias is denied until the operator grants a lease.` : ""),
    kind: "runs-commands",
    input: schema,
    inputSchema: inputJsonSchema(schema),
    outputSchema: providerCallOutputSchema,
    annotations: annotationsFor("runs-commands", title),
    async call(rawArgs: unknown, context: CallContext): Promise<CallToolResult> {
      const envelope = parseEnvelope(schema, rawArgs, provider.tool) as { args: string[]; description?: string; target?: string };
      const target = envelope.target === undefined ? undefined : provider.targets.get(envelope.target);
      const callId = deps.newCallId();
      const scope = target === undefined ? provider.tool : `${provider.tool}/${target.name}`;
      const audit = deps.auditFor(callId, scope);
      const outcome = await deps.run({
        provider,
        target,
        args: envelope.args,
        description: sanitiseDescription(envelope.description),
        signal: context.signal,
        audit,
      });
      return callResult(outcome);
    },
  };
}
