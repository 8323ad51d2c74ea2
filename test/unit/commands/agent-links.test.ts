/**
 * `torii agent install|uninstall` and a client file that is a symbolic link:
 * the link is written through and stays, a dangling one included (its target
 * is created only in an existing folder of the user's); a project's link or
 * linked folder that leads out of the project is refused with nothing written
 * anywhere, the guard hook's file included; the success line names the file
 * written.
 */
import {
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { runCli, type CliResult } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; env: Record<string, string> } {
  const home = realpathSync(tempDirectory("torii-agent-links-"));
  return { home, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

/** Runs the CLI with `project` as the current folder. */
async function inProject(project: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  const previous = process.cwd();
  process.chdir(project);
  try {
    return await runCli(args, env);
  } finally {
    process.chdir(previous);
  }
}

const serversOf = (file: string): string[] => Object.keys((JSON.parse(readFileSync(file, "utf8")) as { mcpServers?: object }).mcpServers ?? {});

describe("a client file that is a symbolic link", () => {
  test("a dangling link (a dotfiles target not created yet) is written through: the target is created, the link stays", async () => {
    const { home, env } = scratch();
    const dots = path.join(home, "dots");
    mkdirSync(dots);
    const link = path.join(home, "mcp.json");
    const target = path.join(dots, "cursor-mcp.json");
    symlinkSync(target, link);
    const result = await runCli(["agent", "install", "cursor", "--config", link], env);
    expect(result.status, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(serversOf(target)).toEqual(["torii"]);
    expect(result.stdout).toContain(`in ${target}`);
    expect((await runCli(["agent", "uninstall", "cursor", "--config", link], env)).status).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(serversOf(target)).toEqual([]);
  });

  test("a dangling link into a folder that does not exist is refused; nothing is created", async () => {
    const { home, env } = scratch();
    const link = path.join(home, "mcp.json");
    const target = path.join(home, "dots", "cursor-mcp.json");
    symlinkSync(target, link);
    const result = await runCli(["agent", "install", "cursor", "--config", link], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${link}: is a symbolic link to ${target}, whose folder does not exist`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(home, "dots"))).toBe(false);
  });

  test("a dangling link into another user's folder is refused; nothing is created", async () => {
    const { home, env } = scratch();
    // As root, a folder given to nobody; otherwise the temporary folder, which is root's.
    const foreign = process.getuid?.() === 0 ? mkdtempSync(path.join(home, "foreign-")) : os.tmpdir();
    if (process.getuid?.() === 0) chownSync(foreign, 65534, 65534);
    expect(statSync(foreign).uid).not.toBe(process.getuid?.());
    const target = path.join(realpathSync(foreign), `torii-links-${path.basename(home)}.json`);
    const link = path.join(home, "mcp.json");
    symlinkSync(target, link);
    const result = await runCli(["agent", "install", "cursor", "--config", link], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("which is not yours; Torii creates no file there");
    expect(existsSync(target)).toBe(false);
  });

  test("a link to an existing file is written through; the backup lies beside the target", async () => {
    const { home, env } = scratch();
    const target = path.join(home, "dots", "mcp.json");
    mkdirSync(path.dirname(target));
    writeFileSync(target, '{ "keep": 1 }\n');
    const link = path.join(home, "mcp.json");
    symlinkSync("dots/mcp.json", link);
    const result = await runCli(["agent", "install", "cursor", "--config", link], env);
    expect(result.status, result.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(serversOf(target)).toEqual(["torii"]);
    expect(readFileSync(`${target}.torii-backup`, "utf8")).toBe('{ "keep": 1 }\n');
    expect(result.stdout).toContain(`registered Torii with Cursor in ${target}`);
  });
});

describe("a project's file that leads out of the project", () => {
  function project(): { home: string; env: Record<string, string>; repo: string; victim: string } {
    const { home, env } = scratch();
    const repo = path.join(home, "repo");
    mkdirSync(path.join(repo, ".cursor"), { recursive: true });
    const victim = path.join(home, "victim.json");
    writeFileSync(victim, '{"keep":1}');
    return { home, env, repo, victim };
  }

  test("a link to a file outside is refused: the outside file is untouched and no backup is left beside it", async () => {
    const { home, env, repo, victim } = project();
    symlinkSync("../../victim.json", path.join(repo, ".cursor", "mcp.json"));
    for (const command of ["install", "uninstall"]) {
      const result = await inProject(repo, ["agent", command, "cursor", "--scope", "project"], env);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(`leads outside the project folder ${repo}, to ${victim}`);
    }
    expect(readFileSync(victim, "utf8")).toBe('{"keep":1}');
    expect(readdirSync(home).filter((name) => name.includes("torii-backup"))).toEqual([]);
  });

  test("a linked folder leading outside is refused too (the user's own client folder, say)", async () => {
    const { home, env, repo } = project();
    const outside = path.join(home, "dot-cursor");
    mkdirSync(outside);
    symlinkSync(outside, path.join(repo, ".gemini"));
    const result = await inProject(repo, ["agent", "install", "gemini-cli", "--scope", "project"], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`leads outside the project folder ${repo}, to ${path.join(outside, "settings.json")}`);
    expect(readdirSync(outside)).toEqual([]);
  });

  test("the guard hook's file is checked the same way: nothing is written when it leads outside", async () => {
    const { env, repo, victim } = project();
    symlinkSync("../../victim.json", path.join(repo, ".cursor", "hooks.json"));
    const result = await inProject(repo, ["agent", "install", "cursor", "--scope", "project", "--guard"], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`leads outside the project folder ${repo}, to ${victim}`);
    expect(readFileSync(victim, "utf8")).toBe('{"keep":1}');
    expect(existsSync(path.join(repo, ".cursor", "mcp.json"))).toBe(false);
  });

  test("a link that stays inside the project is written through, and the success line names its target", async () => {
    const { env, repo } = project();
    const shared = path.join(repo, "shared", "mcp.json");
    mkdirSync(path.dirname(shared));
    symlinkSync("../shared/mcp.json", path.join(repo, ".cursor", "mcp.json"));
    const result = await inProject(repo, ["agent", "install", "cursor", "--scope", "project"], env);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`registered Torii with Cursor in ${shared}`);
    expect(lstatSync(path.join(repo, ".cursor", "mcp.json")).isSymbolicLink()).toBe(true);
    expect(serversOf(shared)).toEqual(["torii"]);
  });
});
