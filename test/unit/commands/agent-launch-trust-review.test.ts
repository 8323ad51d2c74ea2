/**
 * Review findings for src/agents/launch-trust.ts and its use in src/commands/agent/agent.ts
 * (belongs in test/unit/commands/agent-launch-trust.test.ts; helpers copied from there).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { tempDirectory } from "../../support/temp-dirs.js";

const PACKAGE = fileURLToPath(new URL("../../../", import.meta.url));

function scratch(): { home: string; env: Record<string, string> } {
  const home = tempDirectory("torii-agent-launch-");
  return { home, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

function installedCopy(parent: string): string {
  const root = path.join(parent, "torii-mcp");
  mkdirSync(path.join(root, "dist"), { recursive: true, mode: 0o755 });
  cpSync(path.join(PACKAGE, "package.json"), path.join(root, "package.json"));
  for (const name of ["cli.js", "cli.cjs", "chunks", "server", "activate"]) {
    cpSync(path.join(PACKAGE, "dist", name), path.join(root, "dist", name), { recursive: true });
  }
  return root;
}

function runCopy(root: string, args: readonly string[], env: Record<string, string>, cwd?: string) {
  const result = spawnSync(process.execPath, [path.join(root, "dist", "cli.js"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
    shell: false,
    ...(cwd === undefined ? {} : { cwd }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

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
