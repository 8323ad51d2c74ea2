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

/** The per-client registration lines for the configuration root `root`. */
export function registrationLines(root: string): string[] {
  const cli = path.join(path.dirname(catalogueDir()), "dist", "cli.js");
  const node = process.execPath;
  const defaultRoot = resolveConfigRoot({}, process.platform, os.homedir());
  const env = root === defaultRoot ? undefined : { TORII_CONFIG_DIR: root };
  const server = { command: node, args: [cli], ...(env === undefined ? {} : { env }) };
  const envFlag = env === undefined ? "" : ` -e TORII_CONFIG_DIR=${JSON.stringify(root)}`;
  return [
    "Register Torii with your MCP client: torii agent install <client> writes the client's own file (torii agent status lists the clients);",
    "or by hand:",
    `  Claude Code:     claude mcp add torii${envFlag} -- ${JSON.stringify(node)} ${JSON.stringify(cli)}`,
    "  Claude Desktop, Cursor, Windsurf, VS Code (mcpServers in the client's JSON config):",
    `    ${JSON.stringify({ mcpServers: { torii: server } })}`,
    "Then restart the client; torii doctor checks what it will see.",
  ];
}
