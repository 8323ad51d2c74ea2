/**
 * `torii agent install` tells a client to start `node <package>/dist/cli.js`
 * with all of Torii's power. It refuses (nothing written) when that code can be
 * changed by someone else: a package in a folder others can write, a bundle
 * file others can write, or (for `--scope project`) a package inside the
 * project the agent works in; `status` reports such an entry as outdated.
 * It also refuses paths a client would expand (`$`, `{`, `}`) instead of
 * reading them as written.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { CLI_PATH, runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";
import { chmodSharedGroup } from "../../support/shared-group.js";

const PACKAGE = fileURLToPath(new URL("../../../", import.meta.url));

function scratch(): { home: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-launch-");
  return { home, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

/** A copy of the built package as npm installs it (package.json and the bundle), under `parent`. */
function installedCopy(parent: string): string {
  const root = path.join(parent, "torii-mcp");
  mkdirSync(path.join(root, "dist"), { recursive: true, mode: 0o755 });
  cpSync(path.join(PACKAGE, "package.json"), path.join(root, "package.json"));
  for (const name of ["cli.js", "cli.cjs", "chunks", "server", "activate"]) {
    cpSync(path.join(PACKAGE, "dist", name), path.join(root, "dist", name), { recursive: true });
  }
  return root;
}

/** Runs the copy's `torii` as a client registration would start it. */
function runCopy(root: string, args: readonly string[], env: Record<string, string>, cwd?: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [path.join(root, "dist", "cli.js"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
    shell: false,
    ...(cwd === undefined ? {} : { cwd }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the code a registration starts", () => {
  test("a package in a folder others can write is not registered; the same package made private is", () => {
    const { home, env } = scratch();
    const shared = path.join(home, "shared");
    mkdirSync(shared, { mode: 0o755 });
    const root = installedCopy(shared);
    const file = path.join(home, "claude_desktop_config.json");
    chmodSync(shared, 0o777);
    const refused = runCopy(root, ["agent", "install", "claude-desktop", "--config", file], env);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(`${shared}: is writable by group or others`);
    expect(existsSync(file)).toBe(false);
    chmodSync(shared, 0o755);
    const installed = runCopy(root, ["agent", "install", "claude-desktop", "--config", file], env);
    expect(installed.status, installed.stderr).toBe(0);
  });

  test("a group-writable folder passes once the operator lists it in path.trusted_directories (Homebrew's /usr/local)", () => {
    const { home, env } = scratch();
    const shared = path.join(home, "brew");
    mkdirSync(shared, { mode: 0o755 });
    const root = installedCopy(shared);
    chmodSharedGroup(shared, 0o775);
    const file = path.join(home, "claude_desktop_config.json");
    const refused = runCopy(root, ["agent", "install", "claude-desktop", "--config", file], env);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("path.trusted_directories");
    mkdirSync(env.TORII_CONFIG_DIR ?? "", { recursive: true, mode: 0o700 });
    writeFileSync(path.join(env.TORII_CONFIG_DIR ?? "", "settings.yaml"), `version: "1"\npath:\n  trusted_directories:\n    - ${shared}\n`, { mode: 0o600 });
    const installed = runCopy(root, ["agent", "install", "claude-desktop", "--config", file], env);
    expect(installed.status, installed.stderr).toBe(0);
  });

  test("a bundle file others can write: install refused, and status calls the existing entry outdated", () => {
    const { home, env } = scratch();
    const root = installedCopy(home);
    const file = path.join(home, "claude_desktop_config.json");
    expect(runCopy(root, ["agent", "install", "claude-desktop", "--config", file], env).status).toBe(0);
    const chunk = path.join(root, "dist", "chunks", readdirSync(path.join(root, "dist", "chunks"))[0] ?? "");
    chmodSync(chunk, 0o666);
    const status = runCopy(root, ["agent", "status", "claude-desktop", "--config", file, "--json"], env);
    expect(status.status).toBe(1);
    const [row] = (JSON.parse(status.stdout) as { clients: { state: string; reasons: string[] }[] }).clients;
    expect(row?.state).toBe("outdated");
    expect(row?.reasons.join("\n")).toContain(chunk);
    const again = runCopy(root, ["agent", "install", "claude-code", "--config", path.join(home, "claude.json")], env);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toContain(chunk);
    expect(existsSync(path.join(home, "claude.json"))).toBe(false);
  });

  test("--scope project: a Torii installed inside the project (the agent's to write) is not registered there", () => {
    const { home, env } = scratch();
    const project = path.join(home, "project");
    mkdirSync(path.join(project, "node_modules"), { recursive: true });
    const root = installedCopy(path.join(project, "node_modules"));
    const refused = runCopy(root, ["agent", "install", "claude-code", "--scope", "project"], env, project);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain("lies in the project folder");
    expect(existsSync(path.join(project, ".mcp.json"))).toBe(false);
  });
});

describe("the configuration root a project's registration names", () => {
  test("--scope project: a TORII_CONFIG_DIR inside the project (its rules the agent's to write) is not registered", async () => {
    const { home, env } = scratch();
    const project = path.join(home, "project");
    mkdirSync(project);
    const previous = process.cwd();
    process.chdir(project);
    let result;
    try {
      result = await runCli(["agent", "install", "claude-code", "--scope", "project"], { ...env, TORII_CONFIG_DIR: path.join(project, ".torii") });
    } finally {
      process.chdir(previous);
    }
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`its configuration root ${path.join(project, ".torii")} lies in`);
    expect(existsSync(path.join(project, ".mcp.json"))).toBe(false);
  });
});

describe("paths a client would expand", () => {
  test.each([["$HOME"], ["${HOME}"], ["{env:HOME}"], ["line\nbreak"]])("a configuration root holding %j is refused for every client", async (part) => {
    const { home, env } = scratch();
    const file = path.join(home, "settings.json");
    const result = await runCli(["agent", "install", "gemini-cli", "--config", file], { ...env, TORII_CONFIG_DIR: path.join(home, `root-${part}`) });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("TORII_CONFIG_DIR");
    expect(existsSync(file)).toBe(false);
  });

  test("status does not call an entry with such a path registered", async () => {
    const { home, env } = scratch();
    const root = path.join(home, "root-$HOME");
    const file = path.join(home, "settings.json");
    const entry = { command: process.execPath, args: [CLI_PATH, "mcp"], env: { TORII_CONFIG_DIR: root }, trust: false };
    writeFileSync(file, JSON.stringify({ mcpServers: { torii: entry } }));
    const status = await runCli(["agent", "status", "gemini-cli", "--config", file], { ...env, TORII_CONFIG_DIR: root });
    expect(status.status).toBe(1);
    expect(status.stdout).toContain("TORII_CONFIG_DIR");
  });
});

/** Gives every directory 0775 and every file 0664 (0775 if executable) below `dir`: what umask 002 makes of an npm/nvm install. */
function umask002(dir: string): void {
  chmodSync(dir, 0o775);
  for (const name of readdirSync(dir)) {
    const at = path.join(dir, name);
    if (statSync(at).isDirectory()) umask002(at);
    else chmodSync(at, (statSync(at).mode & 0o100) !== 0 ? 0o775 : 0o664);
  }
}

describe("user scope, a clone of Torii registered from its own folder (the README's path from a clone)", () => {
  test("is accepted: the operator runs this checkout by name, not a project's dependency", () => {
    const { home, env } = scratch();
    const clone = installedCopy(path.join(home, "src"));
    const result = runCopy(clone, ["agent", "install", "claude-code"], env, clone);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(existsSync(path.join(home, ".claude.json"))).toBe(true);
  });

  test("a folder above the clone is still the agent's: refused", () => {
    const { home, env } = scratch();
    const work = path.join(home, "work");
    const clone = installedCopy(work);
    const result = runCopy(clone, ["agent", "install", "claude-code"], env, work);
    expect(result.status, result.stdout).not.toBe(0);
    expect(existsSync(path.join(home, ".claude.json"))).toBe(false);
  });
});

describe("user scope, Torii installed in the folder the agent works in", () => {
  test("`npx torii agent install claude-code` in a project with torii as a devDependency is refused as for --scope project", () => {
    const { home, env } = scratch();
    const project = path.join(home, "project");
    mkdirSync(path.join(project, "node_modules"), { recursive: true });
    const root = installedCopy(path.join(project, "node_modules"));
    const result = runCopy(root, ["agent", "install", "claude-code"], env, project);
    // actual: exit 0, ~/.claude.json names <project>/node_modules/torii-mcp/dist/cli.js for every folder; the agent
    // edits node_modules/torii-mcp/dist/cli.cjs and runs as Torii
    expect(result.status, result.stdout).not.toBe(0);
    expect(existsSync(path.join(home, ".claude.json"))).toBe(false);
  });
});

describe("an install made under umask 002 (Ubuntu, Fedora: user private groups)", () => {
  test("the user's own package, group-writable only by the user's private group, can be registered", () => {
    const { home, env } = scratch();
    const lib = path.join(home, ".nvm", "versions", "node", "v22", "lib", "node_modules");
    mkdirSync(lib, { recursive: true });
    const root = installedCopy(lib);
    umask002(path.join(home, ".nvm"));
    const result = runCopy(root, ["agent", "install", "claude-code"], env);
    // actual: exit 3 "not registering this Torii ... is writable by group or others (mode 775)" for every directory
    // of ~/.nvm; before the merge it was registered. Only path.trusted_directories gets it through.
    expect(result.status, result.stderr).toBe(0);
  });
});

describe("user scope, run from the home folder", () => {
  test("a Torii under ~ (nvm's ~/.nvm, a clone) registered from ~ itself is not refused: the home folder is no project", () => {
    const { home, env } = scratch();
    const lib = path.join(home, ".nvm", "versions", "node", "v22", "lib", "node_modules");
    mkdirSync(lib, { recursive: true });
    const root = installedCopy(lib);
    const result = runCopy(root, ["agent", "install", "claude-code"], env, home);
    expect(result.status, result.stderr).toBe(0);
  });
});
