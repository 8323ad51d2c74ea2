/**
 * `torii_config_error`: the only tool of a server whose configuration failed to
 * load. It runs nothing and reads no environment or credential; it explains
 * the failure in the words the operator CLI uses (file:line:column and the
 * fix). Each call loads the configuration again and says whether the problem
 * is still there, so an operator can fix several problems without a restart
 * per attempt; a configuration that loads now is still not served until the
 * server restarts (the tool set is fixed for the life of the process, and a
 * restart is the one place a configuration is accepted).
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { renderStartupFailure, type ConfigurationLoad, type StartupFailure } from "../pipeline/server-configuration.js";
import { parseEnvelope } from "./provider-tool.js";
import { structuredResult } from "./result.js";
import { annotationsFor, inputJsonSchema, type JsonSchemaObject, type ToolDefinition } from "./tool-definition.js";

export const CONFIG_ERROR_TOOL_NAME = "torii_config_error";

const outputSchema: JsonSchemaObject = {
  type: "object",
  properties: {
    status: { type: "string", enum: ["failing", "loads-after-restart"] },
    message: { type: "string" },
    root: { type: "string" },
    file: { type: "string" },
    line: { type: "integer" },
    column: { type: "integer" },
    restart_required: { type: "boolean" },
  },
  required: ["status", "message", "restart_required"],
};

/** The tool; `recheck` loads the configuration again as the server would at start-up. */
export function configErrorTool(recheck: () => ConfigurationLoad): ToolDefinition {
  const schema = z.strictObject({});
  const title = "Why Torii could not start";
  return {
    name: CONFIG_ERROR_TOOL_NAME,
    title,
    description:
      "Read-only. Torii's configuration failed to load, so no command-line tool is available. Returns the problem (file:line:column and " +
      "the fix) for the human operator, who must fix it and restart the Torii MCP server. Do not try to run the CLIs another way.",
    kind: "read-only",
    input: schema,
    inputSchema: inputJsonSchema(schema),
    outputSchema,
    annotations: annotationsFor("read-only", title),
    call(rawArgs: unknown): Promise<CallToolResult> {
      parseEnvelope(schema, rawArgs, CONFIG_ERROR_TOOL_NAME);
      const load = recheck();
      if (load.ok) {
        const message = `The configuration under ${load.configuration.root} loads now; restart the Torii MCP server (reconnect or restart it in the MCP client) to use it.`;
        return Promise.resolve(
          structuredResult(message, { status: "loads-after-restart", message, root: load.configuration.root, restart_required: true }, true),
        );
      }
      return Promise.resolve(structuredResult(renderStartupFailure(load.failure), failureFields(load.failure), true));
    },
  };
}

function failureFields(failure: StartupFailure): Record<string, unknown> {
  return {
    status: "failing",
    message: failure.message,
    ...(failure.root === undefined ? {} : { root: failure.root }),
    ...(failure.file === undefined ? {} : { file: failure.file }),
    ...(failure.line === undefined ? {} : { line: failure.line }),
    ...(failure.column === undefined ? {} : { column: failure.column }),
    restart_required: true,
  };
}
