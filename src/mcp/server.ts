/**
 * createServer(): the MCP server with Torii's tools (one per provider, plus
 * torii_policy), or with the one tool that explains a start-up failure (which
 * also declares logging). Tools capability; the tool set is fixed for the life of
 * the process (a provider or target change needs a restart), so there are no
 * list_changed notifications a client could miss.
 */
// The low-level Server, not McpServer: Torii declares exact JSON Schemas (a target
// enum that accepts nothing when no alias exists) and validates envelopes itself.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ListToolsResult,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { linkedAbort } from "../runtime/linked-abort.js";
import { SERVER_INSTRUCTIONS } from "./instructions.js";
import { noElicitationValidator } from "./no-elicitation-validator.js";
import { checkToolSet, type ToolDefinition } from "./tool-definition.js";

export interface CreatedServer {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see the import
  readonly server: Server;
  /** Aborts every call in flight (their children are killed) and waits for them to settle. */
  cleanup(): Promise<void>;
  /**
   * Aborts the call in flight with request id `id`, if any: the transport calls it for a `notifications/cancelled` the
   * SDK ignores (0, ""), at once and a turn later, once the call's handler started (stdio/transport.ts, cancelRequest).
   * The SDK aborts a call on a cancel too, but not one whose id is falsy (`_oncancel`: `if (!requestId) return`), so a
   * call with the id 0 (the SDK client's first id) or "" ran on, its process with it. Such a call now ends with its
   * canceled result, which the SDK still writes (it did not see the cancel).
   */
  cancel(id: RequestId): void;
}

/** What differs between the normal server and the one that only reports a start-up failure. */
export interface ServerOptions {
  /** The MCP `instructions`; Torii's usual guidance by default. */
  readonly instructions?: string;
  /** Declare the logging capability (the failure server reports through `notifications/message`). */
  readonly logging?: boolean;
  /** Called after each tools/list answer, once it is on its way (serve.ts stores the code cache then). */
  readonly listed?: () => void;
}

/** The error for tools/list or tools/call before initialize. */
export const NOT_INITIALIZED = "the session is not initialized: send initialize first";

export function createServer(tools: readonly ToolDefinition[], version: string, options: ServerOptions = {}): CreatedServer {
  const checked = checkToolSet(tools);
  const byName = new Map(checked.map((tool) => [tool.name, tool]));
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  // The controller of each call in flight by request id (ids are unique among requests in flight: the transport refuses a duplicate).
  const byRequestId = new Map<RequestId, AbortController>();

  // eslint-disable-next-line @typescript-eslint/no-deprecated -- see the import
  const server = new Server(
    { name: "torii", version },
    {
      capabilities: { tools: { listChanged: false }, ...(options.logging === true ? { logging: {} } : {}) },
      instructions: options.instructions ?? SERVER_INSTRUCTIONS,
      jsonSchemaValidator: noElicitationValidator,
    },
  );

  // MCP's lifecycle: initialize is the first interaction. The SDK serves any request before it;
  // Torii lists and runs nothing for a client that has not said who it is and which revision it speaks.
  const requireInitialized = (): void => {
    if (server.getClientVersion() === undefined) throw new McpError(ErrorCode.InvalidRequest, NOT_INITIALIZED);
  };

  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => {
    requireInitialized();
    // After this turn, so the answer is written before the hook's work.
    if (options.listed !== undefined) setImmediate(options.listed);
    return {
      tools: checked.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
      })),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    requireInitialized();
    const tool = byName.get(request.params.name);
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(request.params.name)}`);
    if (shutdown.signal.aborted) throw new McpError(ErrorCode.InternalError, "the server is shutting down");
    const link = linkedAbort([extra.signal, shutdown.signal]);
    byRequestId.set(extra.requestId, link.controller);
    const call = tool.call(request.params.arguments, { signal: link.controller.signal, requestId: extra.requestId });
    inFlight.add(call);
    try {
      return await call;
    } finally {
      inFlight.delete(call);
      link.unlink();
      if (byRequestId.get(extra.requestId) === link.controller) byRequestId.delete(extra.requestId);
    }
  });

  return {
    server,
    async cleanup() {
      shutdown.abort(new Error("server shutting down"));
      await Promise.allSettled([...inFlight]);
    },
    cancel(id) {
      byRequestId.get(id)?.abort(new Error("canceled by the client"));
    },
  };
}
