// The floor a broker is measured against: a bare MCP server on the SDK's
// low-level Server, one tool that spawns BARE_PROGRAM with the agent's args
// (argv only, no shell) and returns its output. No policy, no audit.
import { spawn } from "node:child_process";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const program = process.env.BARE_PROGRAM ?? "/bin/true";
const server = new Server({ name: "bare", version: "1.0.0" }, { capabilities: { tools: {} } });
const inputSchema = { type: "object", properties: { args: { type: "array", items: { type: "string" } } }, required: ["args"] };

server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "run", description: "runs the program", inputSchema }] }));
server.setRequestHandler(
  CallToolRequestSchema,
  (request) =>
    new Promise((resolve, reject) => {
      const child = spawn(program, request.params.arguments?.args ?? [], { shell: false, stdio: ["ignore", "pipe", "pipe"] });
      const chunks = [];
      child.stdout.on("data", (chunk) => chunks.push(chunk));
      child.on("error", reject);
      child.on("close", (code) => {
        const stdout = Buffer.concat(chunks).toString("utf8");
        resolve({ content: [{ type: "text", text: stdout }], structuredContent: { exitCode: code, stdout }, isError: code !== 0 });
      });
    }),
);

await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
