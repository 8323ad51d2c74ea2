/**
 * `torii agent status` reports every place a client reads an entry named torii
 * from, not only the scopes' files: machine-wide settings (Gemini CLI's system
 * settings, moved here by its own environment variable), VS Code's
 * settings.json `mcp` block, opencode.jsonc (comments and all) and the project
 * files in the folders above the working directory that the client reads. An
 * entry that starts a different Torii install says which and what to run; a
 * configuration root in the folder the server runs in is refused by install
 * and `unsafe` in status.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCliIn } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; project: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-places-");
  const project = path.join(home, "work", "project");
  mkdirSync(project, { recursive: true });
  return { home, project, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

const runIn = runCliIn;

function rowOf(result: { stdout: string }): { state: string; reasons: string[] } {
  const row = (JSON.parse(result.stdout) as { clients: { state: string; reasons: string[] }[] }).clients[0];
  if (row === undefined) throw new Error(`no row in ${result.stdout}`);
  return row;
}

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const LOOK_ALIKE = { command: "npx", args: ["-y", "helper"] };

/** Installs `id` (user scope) from `project`, checks it is registered, plants `plant`, and returns the status row. */
async function statusAfter(id: string, plant: (places: { home: string; project: string }) => string, extraEnv: Record<string, string> = {}) {
  const { home, project, env } = scratch();
  const runEnv = { ...env, ...extraEnv };
  expect((await runIn(project, ["agent", "install", id], runEnv)).status).toBe(0);
  expect((await runIn(project, ["agent", "status", id], runEnv)).status).toBe(0);
  const file = plant({ home, project });
  const status = await runIn(project, ["agent", "status", id, "--json"], runEnv);
  return { status: status.status, row: rowOf(status), file, home, project, env: runEnv };
}

describe("places besides the scopes' files", () => {
  test("gemini-cli: a look-alike in the system settings (GEMINI_CLI_SYSTEM_SETTINGS_PATH) makes the row foreign", async () => {
    const system = path.join(tempDirectory("torii-gemini-system-"), "settings.json");
    const result = await statusAfter("gemini-cli", () => write(system, JSON.stringify({ mcpServers: { torii: LOOK_ALIKE } })), {
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: system,
    });
    expect(result.status).toBe(1);
    expect(result.row.state).toBe("foreign");
    expect(result.row.reasons.join("\n")).toContain(`${system} (system settings)`);
  });

  test("vscode: a look-alike in the workspace's .vscode/settings.json mcp block makes the row foreign", async () => {
    const result = await statusAfter("vscode", ({ project }) =>
      write(
        path.join(project, ".vscode", "settings.json"),
        `{\n  // editor settings\n  "mcp": { "servers": { "torii": ${JSON.stringify(LOOK_ALIKE)} } },\n}\n`,
      ),
    );
    expect(result.row.state).toBe("foreign");
    expect(result.row.reasons.join("\n")).toContain(path.join(result.project, ".vscode", "settings.json"));
  });

  test("vscode: a look-alike in the user's settings.json mcp block makes the row foreign", async () => {
    const result = await statusAfter("vscode", ({ home }) =>
      write(path.join(home, ".config", "Code", "User", "settings.json"), JSON.stringify({ mcp: { servers: { torii: LOOK_ALIKE } } })),
    );
    expect(result.row.state).toBe("foreign");
    expect(result.row.reasons.join("\n")).toContain("user settings.json");
  });

  test("opencode: a look-alike in a project opencode.jsonc (with comments) makes the row foreign", async () => {
    const result = await statusAfter("opencode", ({ project }) =>
      write(
        path.join(project, "opencode.jsonc"),
        `{\n  // the project's opencode settings\n  "mcp": { "torii": { "type": "local", "command": ["npx", "-y", "helper"] } },\n}\n`,
      ),
    );
    expect(result.row.state).toBe("foreign");
    expect(result.row.reasons.join("\n")).toContain("opencode.jsonc");
  });

  test("opencode: a look-alike in the user's opencode.jsonc beside opencode.json makes the row foreign", async () => {
    const result = await statusAfter("opencode", ({ home }) =>
      write(
        path.join(home, ".config", "opencode", "opencode.jsonc"),
        `// mine\n{ "mcp": { "torii": { "type": "local", "command": ["npx", "-y", "helper"] } } }\n`,
      ),
    );
    expect(result.row.state).toBe("foreign");
    expect(result.row.reasons.join("\n")).toContain("user opencode.jsonc");
  });
});

test("opencode: a look-alike in ~/.opencode/opencode.json (which opencode always reads, over the others) makes the row foreign from a repository", async () => {
  const result = await statusAfter("opencode", ({ home, project }) => {
    // The project is a repository: the walk up stops at it, and the home folder's .opencode is read all the same.
    mkdirSync(path.join(project, ".git"));
    return write(path.join(home, ".opencode", "opencode.json"), JSON.stringify({ mcp: { torii: { type: "local", command: ["npx", "-y", "helper"] } } }));
  });
  expect(result.row.state).toBe("foreign");
  expect(result.row.reasons.join("\n")).toContain(path.join(result.home, ".opencode", "opencode.json"));
});

test.each(["OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR"])("opencode: a look-alike in the file %s names makes the row foreign", async (variable) => {
  const folder = tempDirectory("torii-opencode-env-");
  const file = path.join(folder, "opencode.json");
  const result = await statusAfter("opencode", () => write(file, JSON.stringify({ mcp: { torii: { type: "local", command: ["npx", "-y", "helper"] } } })), {
    [variable]: variable === "OPENCODE_CONFIG" ? file : folder,
  });
  expect(result.row.state).toBe("foreign");
  expect(result.row.reasons.join("\n")).toContain(file);
});

describe("project files in the folders above the working directory", () => {
  test("claude-code: a .mcp.json in a parent folder makes the row foreign", async () => {
    const result = await statusAfter("claude-code", ({ project }) =>
      write(path.join(path.dirname(project), ".mcp.json"), JSON.stringify({ mcpServers: { torii: LOOK_ALIKE } })),
    );
    expect(result.status).toBe(1);
    expect(result.row.state).toBe("foreign");
    expect(result.row.reasons.join("\n")).toContain(`a folder above this one`);
  });

  test("codex: a .codex/config.toml between the repository root and the working directory makes the row foreign", async () => {
    const result = await statusAfter("codex", ({ project }) => {
      mkdirSync(path.join(path.dirname(project), ".git"));
      return write(path.join(path.dirname(project), ".codex", "config.toml"), `[mcp_servers.torii]\ncommand = "npx"\nargs = ["-y", "helper"]\n`);
    });
    expect(result.row.state).toBe("foreign");
    expect(result.row.reasons.join("\n")).toContain(path.join(path.dirname(result.project), ".codex", "config.toml"));
  });

  test("opencode: an opencode.json in a parent folder up to the worktree root makes the row foreign", async () => {
    const result = await statusAfter("opencode", ({ project }) => {
      mkdirSync(path.join(path.dirname(project), ".git"));
      return write(path.join(path.dirname(project), "opencode.json"), JSON.stringify({ mcp: { torii: { type: "local", command: ["npx", "-y", "helper"] } } }));
    });
    expect(result.row.state).toBe("foreign");
  });
});

test("opencode: with only opencode.jsonc, install writes there (comments kept) instead of creating an opencode.json it would override", async () => {
  const { project, env } = scratch();
  const jsonc = write(path.join(project, "opencode.jsonc"), `{\n  // the project's settings\n  "theme": "dark",\n}\n`);
  const installed = await runIn(project, ["agent", "install", "opencode", "--scope", "project", "--json"], env);
  expect(installed.status, installed.stdout + installed.stderr).toBe(0);
  expect((JSON.parse(installed.stdout) as { file: string }).file).toBe(jsonc);
  expect(existsSync(path.join(project, "opencode.json"))).toBe(false);
  expect(readFileSync(jsonc, "utf8")).toContain("// the project's settings");
  const status = await runIn(project, ["agent", "status", "opencode", "--scope", "project", "--json"], env);
  expect(rowOf(status).state).toBe("registered");
});

/** Claude Code's status, registered for the user, with a project .mcp.json that starts another checkout (`prepare`d first). */
async function projectEntryStartingOtherInstall(prepare: (other: string) => unknown): Promise<{ other: string; row: { state: string; reasons: string[] } }> {
  const other = path.join(tempDirectory("torii-other-install-"), "checkout");
  write(path.join(other, "dist", "cli.js"), "");
  prepare(other);
  const { project, env } = scratch();
  expect((await runIn(project, ["agent", "install", "claude-code"], env)).status).toBe(0);
  write(
    path.join(project, ".mcp.json"),
    JSON.stringify({ mcpServers: { torii: { command: process.execPath, args: [path.join(other, "dist", "cli.js"), "mcp"] } } }),
  );
  return { other, row: rowOf(await runIn(project, ["agent", "status", "claude-code", "--json"], env)) };
}

describe("an entry that starts a different Torii install", () => {
  test("says which install it starts and what to run", async () => {
    const other = path.join(tempDirectory("torii-other-install-"), "torii-1.0");
    write(path.join(other, "package.json"), JSON.stringify({ name: "torii-mcp", version: "1.0.0" }));
    write(path.join(other, "dist", "cli.js"), "");
    const { home, project, env } = scratch();
    const file = write(
      path.join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: {
          torii: {
            type: "stdio",
            command: process.execPath,
            args: [path.join(other, "dist", "cli.js"), "mcp"],
            env: { TORII_CONFIG_DIR: env.TORII_CONFIG_DIR },
          },
        },
      }),
    );
    const status = await runIn(project, ["agent", "status", "claude-code", "--json"], env);
    const row = rowOf(status);
    expect(status.status).toBe(1);
    expect(row.state).toBe("outdated");
    expect(row.reasons[0]).toContain(`a different Torii install at "${other}" (version "1.0.0")`);
    expect(row.reasons[0]).toContain("torii agent install claude-code");
    expect(file).toBeDefined();
  });

  test("the same in a place the client prefers (a project's .mcp.json)", async () => {
    const { other, row } = await projectEntryStartingOtherInstall(() => undefined);
    expect(row.state).toBe("outdated");
    expect(row.reasons.join("\n")).toContain(`an entry that starts a different Torii install at "${other}"`);
  });
});

describe("a configuration root in the folder the server runs in", () => {
  test("install (user scope) from the project refuses a root inside it and writes nothing", async () => {
    const { home, project, env } = scratch();
    const refused = await runIn(project, ["agent", "install", "claude-code"], { ...env, TORII_CONFIG_DIR: path.join(project, ".torii") });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(`its configuration root ${path.join(project, ".torii")} lies in`);
    expect(existsSync(path.join(home, ".claude.json"))).toBe(false);
  });

  test("status calls the user's entry whose root lies in the working directory unsafe", async () => {
    const { home, project, env } = scratch();
    expect((await runIn(project, ["agent", "install", "claude-code"], env)).status).toBe(0);
    const file = path.join(home, ".claude.json");
    const entry = {
      type: "stdio",
      command: process.execPath,
      args: [path.join(process.cwd(), "dist", "cli.js"), "mcp"],
      env: { TORII_CONFIG_DIR: path.join(project, ".torii") },
    };
    writeFileSync(file, JSON.stringify({ mcpServers: { torii: entry } }));
    const status = await runIn(project, ["agent", "status", "claude-code", "--json"], env);
    expect(status.status).toBe(1);
    expect(rowOf(status).state).toBe("unsafe");
    expect(rowOf(status).reasons.join("\n")).toContain(`its configuration root ${path.join(project, ".torii")} lies in ${project}`);
  });

  test("status calls a project's Torii entry with its root in the project unsafe", async () => {
    const { project, env } = scratch();
    expect((await runIn(project, ["agent", "install", "cursor"], env)).status).toBe(0);
    write(
      path.join(project, ".cursor", "mcp.json"),
      JSON.stringify({
        mcpServers: {
          torii: {
            command: process.execPath,
            args: [path.join(process.cwd(), "dist", "cli.js"), "mcp"],
            env: { TORII_CONFIG_DIR: path.join(project, ".torii") },
          },
        },
      }),
    );
    const row = rowOf(await runIn(project, ["agent", "status", "cursor", "--json"], env));
    expect(row.state).toBe("unsafe");
    expect(row.reasons.join("\n")).toContain(path.join(project, ".cursor", "mcp.json"));
  });
});

describe("a configuration root reached through a link into the folder the server runs in", () => {
  /** A link in the home folder to the project, and a root below it (not created: Torii makes it on first use). */
  function linkedRoot(home: string, project: string): string {
    symlinkSync(project, path.join(home, "to-project"));
    return path.join(home, "to-project", ".torii");
  }

  test("status calls the user's entry unsafe when its root is the project's through a link", async () => {
    const { home, project, env } = scratch();
    expect((await runIn(project, ["agent", "install", "claude-code"], env)).status).toBe(0);
    const root = linkedRoot(home, project);
    const entry = { type: "stdio", command: process.execPath, args: [path.join(process.cwd(), "dist", "cli.js"), "mcp"], env: { TORII_CONFIG_DIR: root } };
    writeFileSync(path.join(home, ".claude.json"), JSON.stringify({ mcpServers: { torii: entry } }));
    const row = rowOf(await runIn(project, ["agent", "status", "claude-code", "--json"], env));
    expect(row.state).toBe("unsafe");
    expect(row.reasons.join("\n")).toContain(`its configuration root ${root} lies in`);
  });

  test("install (user scope) refuses a root that is the project's through a link, and writes nothing", async () => {
    const { home, project, env } = scratch();
    const root = linkedRoot(home, project);
    const refused = await runIn(project, ["agent", "install", "claude-code"], { ...env, TORII_CONFIG_DIR: root });
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(`its configuration root ${root} lies in`);
    expect(existsSync(path.join(home, ".claude.json"))).toBe(false);
  });
});

test("status never prints the values of a look-alike's env or headers, wherever it is found", async () => {
  const result = await statusAfter("vscode", ({ home, project }) => {
    write(
      path.join(project, ".vscode", "settings.json"),
      JSON.stringify({
        mcp: {
          servers: {
            torii: {
              command: process.execPath,
              args: [path.join(process.cwd(), "dist", "cli.js"), "mcp"],
              env: { TORII_CONFIG_DIR: path.join(home, "torii-root"), GITHUB_TOKEN: "SECRET-ENV-VALUE" },
            },
          },
        },
      }),
    );
    return write(
      path.join(home, ".config", "Code", "User", "settings.json"),
      JSON.stringify({
        mcp: { servers: { torii: { type: "http", url: "https://example.test/mcp", headers: { Authorization: "Bearer SECRET-HEADER-VALUE" } } } },
      }),
    );
  });
  expect(result.row.state).toBe("foreign");
  const plain = await runIn(result.project, ["agent", "status", "vscode"], result.env);
  for (const output of [JSON.stringify(result.row), plain.stdout, plain.stderr]) {
    expect(output).not.toContain("SECRET-ENV-VALUE");
    expect(output).not.toContain("SECRET-HEADER-VALUE");
  }
  // What the entries are is still said: the variable's name and the server's address.
  expect(result.row.reasons.join("\n")).toContain("GITHUB_TOKEN");
  expect(result.row.reasons.join("\n")).toContain("https://example.test/mcp");
});

test("a different install's package.json that is a named pipe does not hold status: the install is named without a version", async () => {
  // Without the fix this never returns: the pipe blocks the whole process, the test's own timeout included.
  const { other, row } = await projectEntryStartingOtherInstall((other) => execFileSync("mkfifo", [path.join(other, "package.json")]));
  expect(row.state).toBe("outdated");
  expect(row.reasons.join("\n")).toContain(`a different Torii install at "${other}", not this one`);
});

test("a huge .mcp.json in a parent folder is refused before it is read: the row is unknown and says why", async () => {
  const { home, project, env } = scratch();
  expect((await runIn(project, ["agent", "install", "claude-code"], env)).status).toBe(0);
  // Sparse: it costs no disk, but reading it would cost the bytes (and minutes of parsing) it claims.
  const huge = write(path.join(home, "work", ".mcp.json"), "");
  truncateSync(huge, 200 * 1024 * 1024);
  const row = rowOf(await runIn(project, ["agent", "status", "claude-code", "--json"], env));
  expect(row.state).toBe("unknown");
  expect(row.reasons.join("\n")).toContain("larger than Torii reads");
});
