/**
 * A real MCP session: the SDK's Client over StdioClientTransport against the
 * built server (`node dist/cli.js`), with the configuration root and the
 * environment the test chooses. The server's stderr is collected for diagnosis.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallOutcome } from "../../src/pipeline/call-types.js";
import { CLI_PATH } from "./run-cli.js";

export interface McpSession {
  readonly client: Client;
  readonly stderr: () => string;
  /** The server process's pid (null once it has exited). */
  readonly pid: () => number | null;
  call(name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; timeout?: number }): Promise<CallToolResult>;
  close(): Promise<void>;
}

/**
 * Starts the server; `options.cwd` is its working directory (the test runner's by default);
 * `options.onClient` sees the client before it connects (to register notification handlers);
 * `options.entry` is the script node runs (dist/cli.js by default; a test may pass a link to it).
 */
export async function startSession(
  configRoot: string,
  env: Record<string, string> = {},
  options: { cwd?: string; onClient?: (client: Client) => void; entry?: string } = {},
): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.entry ?? CLI_PATH],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", TORII_NO_GUI: "1", TORII_CONFIG_DIR: configRoot, ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const client = new Client({ name: "torii-e2e", version: "1.0.0" });
  options.onClient?.(client);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    pid: () => transport.pid,
    async call(name, args, options = {}) {
      return (await client.callTool({ name, arguments: args }, undefined, {
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        timeout: options.timeout ?? 30_000,
      })) as CallToolResult;
    },
    close: () => client.close(),
  };
}

/** The structured result of a provider tool call. */
export function outcomeOf(result: CallToolResult): CallOutcome {
  if (result.structuredContent === undefined) throw new Error(`no structuredContent in ${JSON.stringify(result)}`);
  return result.structuredContent as unknown as CallOutcome;
}
