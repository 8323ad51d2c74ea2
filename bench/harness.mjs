// Shared pieces of the server benchmarks: a throw-away config root with a
// provider for a trivial binary, and a real MCP client session over stdio.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

/** A config root with one provider, `run`, whose command is `command` and whose rules accept everything. */
export function benchConfig(command, settings = "") {
  const root = mkdtempSync(path.join(os.tmpdir(), "torii-bench-"));
  mkdirSync(path.join(root, "providers/run"), { recursive: true });
  writeFileSync(path.join(root, "providers/run/provider.yaml"), `version: "1"\nname: run\ntool: run\ncommand: ${JSON.stringify(command)}\n`);
  writeFileSync(path.join(root, "providers/run/rules.yaml"), 'version: "1"\naccept: ["/.*/"]\n');
  if (settings !== "") writeFileSync(path.join(root, "settings.yaml"), settings);
  return root;
}

export async function connect(command, args, env) {
  const transport = new StdioClientTransport({ command, args, env: { PATH: process.env.PATH, HOME: os.homedir(), ...env }, stderr: "ignore" });
  const client = new Client({ name: "torii-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, pid: transport.pid };
}

/** VmRSS and VmHWM of a process in KiB (Linux /proc). */
export async function memoryOf(pid) {
  const { readFileSync } = await import("node:fs");
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}
