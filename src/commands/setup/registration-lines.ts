/**
 * The lines that register this Torii with MCP clients: `torii agent install`
 * writes a client's own file; for a client it does not know, setup prints
 * what to run or paste, with absolute paths (GUI clients do not see the
 * shell's PATH) and the configuration root when it is not the default.
 */
import os from "node:os";
import path from "node:path";
import { resolveConfigRoot } from "../../config/paths.js";
import { shellQuote } from "../../policy/shell-quote.js";
import { catalogueDir } from "../provider/catalogue.js";

/** How a client launches this Torii for `root`: absolute node and cli.js, and `TORII_CONFIG_DIR` unless `root` is the default. */
export function registrationEntry(root: string): { command: string; args: string[]; env?: { TORII_CONFIG_DIR: string } } {
  const cli = path.join(path.dirname(catalogueDir()), "dist", "cli.js");
  const defaultRoot = resolveConfigRoot({}, process.platform, os.homedir());
  return { command: process.execPath, args: [cli], ...(root === defaultRoot ? {} : { env: { TORII_CONFIG_DIR: root } }) };
}

/**
 * The per-client registration lines for the configuration root `root`. The Claude Code line is pasted into a shell:
 * shell-quoted (policy/shell-quote.ts) where the shell is sh, bash, zsh or fish, where JSON's double quotes would
 * leave `$(…)` or a backquote in a path to run; in double quotes on Windows, whose shells read no single quotes alike.
 */
export function registrationLines(root: string, platform: NodeJS.Platform = process.platform): string[] {
  const server = registrationEntry(root);
  const quote = platform === "win32" ? (word: string) => JSON.stringify(word) : shellQuote;
  const envValue = platform === "win32" ? `TORII_CONFIG_DIR=${quote(root)}` : quote(`TORII_CONFIG_DIR=${root}`);
  const envFlag = server.env === undefined ? "" : ` -e ${envValue}`;
  return [
    "Register Torii with your MCP client: torii agent install <client> writes the client's own file (torii agent status lists the clients);",
    "or by hand:",
    `  Claude Code:     claude mcp add torii${envFlag} -- ${[server.command, ...server.args].map(quote).join(" ")}`,
    "  Claude Desktop, Cursor, Windsurf, VS Code (mcpServers in the client's JSON config):",
    `    ${JSON.stringify({ mcpServers: { torii: server } })}`,
    "Then restart the client; torii doctor checks what it will see.",
  ];
}
