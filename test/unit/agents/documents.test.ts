import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseToml } from "smol-toml";
import { describe, expect, test } from "vitest";
import { ConfigError } from "../../../src/config/errors.js";
import { editJsonDocument, parseJsonDocument } from "../../../src/agents/json-document.js";
import { editTomlDocument, parseTomlDocument } from "../../../src/agents/toml-document.js";

const ENTRY = { command: "/usr/bin/node", args: ["/opt/torii/dist/cli.js", "mcp"], env: { TORII_CONFIG_DIR: "/home/ann/.config/torii" } };

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("JSON/JSONC client files", () => {
  const jsonc = `// my servers
{
    "mcpServers": {
        // the filesystem server
        "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
    },
    "theme": "dark"
}
`;

  test("adding Torii keeps comments, other servers, other settings and the file's indentation", () => {
    const edited = editJsonDocument("f.json", jsonc, [{ path: ["mcpServers", "torii"], value: ENTRY }]);
    expect(edited).toContain("// my servers");
    expect(edited).toContain("// the filesystem server");
    expect(edited).toContain('    "theme": "dark"');
    const parsed = parseJsonc(edited) as { mcpServers: Record<string, unknown>; theme: string };
    expect(parsed.mcpServers.torii).toEqual(ENTRY);
    expect(parsed.mcpServers.fs).toEqual({ command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] });
    expect(parsed.theme).toBe("dark");
  });

  test("removing Torii gives back the other servers untouched", () => {
    const added = editJsonDocument("f.json", jsonc, [{ path: ["mcpServers", "torii"], value: ENTRY }]);
    const removed = editJsonDocument("f.json", added, [{ path: ["mcpServers", "torii"], value: undefined }]);
    expect(parseJsonc(removed)).toEqual(parseJsonc(jsonc));
    expect(removed).toContain("// the filesystem server");
  });

  test("an empty or missing file becomes an object holding only Torii", () => {
    expect(JSON.parse(editJsonDocument("f.json", "", [{ path: ["servers", "torii"], value: ENTRY }]))).toEqual({ servers: { torii: ENTRY } });
  });

  test("a file that does not parse is refused with file:line:col", () => {
    const broken = '{\n  "mcpServers": {\n    "fs": { "command": "npx"\n      "args": [] }\n  }\n}\n';
    const error = errorOf(() => editJsonDocument("/cfg/mcp.json", broken, [{ path: ["mcpServers", "torii"], value: ENTRY }]));
    expect(error.file).toBe("/cfg/mcp.json");
    expect(error.line).toBe(4);
    expect(error.message).toMatch(/^\/cfg\/mcp\.json:4:\d+: not valid JSON/u);
  });

  test("a top level that is not an object is refused", () => {
    expect(errorOf(() => parseJsonDocument("f.json", "[1, 2]")).message).toContain("not a JSON object");
  });
});

describe("Codex's TOML", () => {
  const toml = `# Codex settings
model = "o4"

[mcp_servers.docs]
command = "docs-server" # keep me

# a comment that belongs to the next table
[profiles.fast]
model = "o4-mini"
`;

  test("adding Torii's table keeps every other line byte for byte", () => {
    const edited = editTomlDocument("c.toml", toml, [{ path: ["mcp_servers", "torii"], value: ENTRY }]);
    expect(edited.startsWith(toml.trimEnd())).toBe(true);
    const parsed = parseToml(edited) as { mcp_servers: Record<string, unknown> };
    expect(parsed.mcp_servers.torii).toEqual(ENTRY);
    expect(parsed.mcp_servers.docs).toEqual({ command: "docs-server" });
  });

  test("rewriting Torii's table in the middle of the file replaces it in place, comments of the next table kept", () => {
    const middle = toml.replace("# a comment", `[mcp_servers.torii]\ncommand = "old"\n\n[mcp_servers.torii.env]\nA = "1"\n\n# a comment`);
    const edited = editTomlDocument("c.toml", middle, [{ path: ["mcp_servers", "torii"], value: ENTRY }]);
    expect(edited).toContain("# a comment that belongs to the next table\n[profiles.fast]");
    expect(edited).not.toContain('command = "old"');
    expect((parseToml(edited) as { mcp_servers: Record<string, unknown> }).mcp_servers.torii).toEqual(ENTRY);
    const removed = editTomlDocument("c.toml", edited, [{ path: ["mcp_servers", "torii"], value: undefined }]);
    expect(parseToml(removed)).toEqual(parseToml(toml));
    expect(removed).toContain('command = "docs-server" # keep me');
  });

  test("an entry written inline is refused rather than half-edited", () => {
    const inline = `mcp_servers = { torii = { command = "old" } }\n`;
    const error = errorOf(() => editTomlDocument("c.toml", inline, [{ path: ["mcp_servers", "torii"], value: ENTRY }]));
    expect(error.message).toContain("not written as a table of its own");
  });

  test("a file that does not parse is refused with file:line:col", () => {
    const error = errorOf(() => parseTomlDocument("/cfg/config.toml", 'model = "o4"\nargs = [\n'));
    expect(error.message).toMatch(/^\/cfg\/config\.toml:3:1: not valid TOML/u);
  });
});
