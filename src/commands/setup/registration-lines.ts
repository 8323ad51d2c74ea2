/**
 * The lines that register this Torii with MCP clients: `torii agent install`
 * writes a client's own file; for a client it does not know, setup prints
 * what to run or paste, with absolute paths (GUI clients do not see the
 * shell's PATH) and the configuration root when it is not the default.
 */
import os from "node:os";
import path from "node:path";
import { resolveConfigRoot } from "../../config/paths.js";
import { catalogueDir } from "../provider/catalogue.js";

/** How a client launches this Torii for `root`: absolute node and cli.js, and `TORII_CONFIG_DIR` unless `root` is the default. */
export function registrationEntry(root: string): { command: string; args: string[]; env?: { TORII_CONFIG_DIR: string } } {
  const cli = path.join(path.dirname(catalogueDir()), "dist", "cli.js");
  const defaultRoot = resolveConfigRoot({}, process.platform, os.homedir());
  return { command: process.execPath, args: [cli], ...(root === defaultRoot ? {} : { env: { TORII_CONFIG_DIR: root } }) };
}

/** The per-client registration lines for the configuration root `root`. */
export function registrationLines(root: string): string[] {
  const server = registrationEntry(root);
  const envFlag = server.env === undefined ? "" : ` -e TORII_CONFIG_DIR=${JSON.stringify(root)}`;
  return [
    "Register Torii with your MCP client: torii agent install <client> writes the client's own file (torii agent status lists the clients);",
    "or by hand:",
    `  Claude Code:     claude mcp add torii${envFlag} -- ${JSON.stringify(server.command)} ${server.args.map((arg) => JSON.stringify(arg)).join(" ")}`,
    "  Claude Desktop, Cursor, Windsurf, VS Code (mcpServers in the client's JSON config):",
    `    ${JSON.stringify({ mcpServers: { torii: server } })}`,
    "Then restart the client; torii doctor checks what it will see.",
  ];
}
