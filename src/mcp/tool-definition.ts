/**
 * A tool as Torii registers it: name, schemas, annotations and handler kept
 * together. Annotations are derived from the tool's kind and checked when the
 * tool set is built, so a read-only tool can never be announced as one that
 * runs commands or the reverse (they are hints to clients, not a boundary,
 * but a wrong hint misleads the human reviewing the call).
 */
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";

/** `read-only`: inspects policy, runs nothing. `runs-commands`: spawns a real CLI against the outside world. */
export type ToolKind = "read-only" | "runs-commands";

export type JsonSchemaObject = { readonly type: "object" } & Readonly<Record<string, unknown>>;

export interface CallContext {
  /** Aborted when the client cancels or the server shuts down. */
  readonly signal: AbortSignal;
  readonly requestId: string | number;
}

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly kind: ToolKind;
  /** The envelope as zod validates it in `call`: the one definition of the input. */
  readonly input: z.ZodType;
  /** What tools/list advertises: derived from `input` (inputJsonSchema), never written by hand. */
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
  readonly annotations: ToolAnnotations;
  /** Validates `args` first (throwing an InvalidParams McpError), then handles the call. */
  call(args: unknown, context: CallContext): Promise<CallToolResult>;
}

/** The annotations a tool of `kind` must carry. */
export function annotationsFor(kind: ToolKind, title: string): ToolAnnotations {
  return kind === "read-only"
    ? { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
    : { title, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
}

/**
 * The JSON Schema a client sees for an envelope, derived from the zod schema
 * that validates it, so every limit zod enforces is advertised (a refinement
 * JSON Schema cannot express must be stated in the field's description).
 */
export function inputJsonSchema(input: z.ZodType): JsonSchemaObject {
  const schema: Record<string, unknown> = { ...z.toJSONSchema(input, { io: "input" }) };
  // MCP's default dialect is the one zod writes (2020-12); the tools never declared it.
  delete schema.$schema;
  if (schema.type !== "object") throw new ToolRegistrationError("a tool's input must be an object schema");
  return { ...schema, type: "object" };
}

/** Thrown at start-up when a tool set breaks an invariant; the server does not start. */
export class ToolRegistrationError extends Error {}

/**
 * Checks the tool set: unique names, annotations that match each tool's kind
 * exactly, and object schemas that refuse unknown properties.
 */
export function checkToolSet(tools: readonly ToolDefinition[]): readonly ToolDefinition[] {
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new ToolRegistrationError(`duplicate tool name ${tool.name}`);
    names.add(tool.name);
    const expected = annotationsFor(tool.kind, tool.title);
    for (const [key, value] of Object.entries(expected)) {
      if ((tool.annotations as Record<string, unknown>)[key] !== value) {
        throw new ToolRegistrationError(`tool ${tool.name} (${tool.kind}) must have annotation ${key}=${JSON.stringify(value)}`);
      }
    }
    if (tool.inputSchema.additionalProperties !== false) {
      throw new ToolRegistrationError(`tool ${tool.name} must refuse unknown input properties`);
    }
  }
  return tools;
}
