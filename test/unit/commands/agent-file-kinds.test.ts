/**
 * `torii agent install|status` and a client file that is not one regular file
 * of the operator's: a named pipe (which a plain read waits on forever), a
 * directory, a file with a second hard link (the rename would leave the other
 * name with the old content) and another user's file are each refused with a
 * ConfigError naming the file; nothing is written and no backup is left.
 */
import { chownSync, closeSync, constants, linkSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { runCli } from "../../support/run-cli.js";
import { tempDirectory } from "../../support/temp-dirs.js";

function scratch(): { home: string; env: Record<string, string> } {
  const home = realpathSync(tempDirectory("torii-agent-kinds-"));
  return { home, env: { HOME: home, TORII_CONFIG_DIR: path.join(home, "torii-root"), XDG_CONFIG_HOME: path.join(home, ".config") } };
}

const backupsIn = (dir: string): string[] => readdirSync(dir).filter((name) => name.includes(".torii-backup"));

const pipes: string[] = [];
afterEach(() => {
  // A reader still waiting on a pipe (the old code) is given a writer and then EOF, so no thread stays blocked.
  for (const pipe of pipes.splice(0)) closeSync(openSync(pipe, constants.O_RDWR | constants.O_NONBLOCK));
});

describe("a client file that is not a regular file of one name", () => {
  test("a named pipe is refused at once, by install and by status, naming the file", { timeout: 20_000 }, async () => {
    const { home, env } = scratch();
    const pipe = path.join(home, "mcp.json");
    execFileSync("mkfifo", [pipe]);
    pipes.push(pipe);
    for (const command of ["install", "status"]) {
      const result = await runCli(["agent", command, "cursor", "--config", pipe], env);
      expect(result.status, command).not.toBe(0);
      expect(result.stderr + result.stdout).toContain(`${pipe}: is a named pipe (FIFO), not a regular file`);
    }
    expect(statSync(pipe).isFIFO()).toBe(true);
    expect(backupsIn(home)).toEqual([]);
  });

  test("a directory is refused with a ConfigError naming it, not an unexpected error", async () => {
    const { home, env } = scratch();
    const dir = path.join(home, "mcp.json");
    mkdirSync(dir);
    const result = await runCli(["agent", "install", "cursor", "--config", dir], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${dir}: is a directory, not a regular file`);
    expect(result.stderr).not.toContain("unexpected error");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a file with a second hard link is refused; both names keep the same, unchanged bytes", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "mcp.json");
    const other = path.join(home, "dotfiles-mcp.json");
    const original = '{\n  "mcpServers": {}\n}\n';
    writeFileSync(file, original);
    linkSync(file, other);
    const result = await runCli(["agent", "install", "cursor", "--config", file], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${file}: has 2 hard links`);
    expect(readFileSync(file, "utf8")).toBe(original);
    expect(statSync(file).ino).toBe(statSync(other).ino);
    expect(backupsIn(home)).toEqual([]);
  });

  test.runIf(process.getuid?.() === 0)("another user's file is refused (as root: a file given to nobody); it stays theirs and unchanged", async () => {
    const { home, env } = scratch();
    const file = path.join(home, "mcp.json");
    const original = '{ "mcpServers": {} }\n';
    writeFileSync(file, original, { mode: 0o644 });
    chownSync(file, 65534, 65534);
    const result = await runCli(["agent", "install", "cursor", "--config", file], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${file}: belongs to user id 65534, not to you`);
    expect(statSync(file).uid).toBe(65534);
    expect(readFileSync(file, "utf8")).toBe(original);
    expect(backupsIn(home)).toEqual([]);
  });
});
