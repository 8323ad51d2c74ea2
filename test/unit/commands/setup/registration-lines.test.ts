/**
 * The Claude Code registration line `torii setup` prints is pasted into the
 * operator's shell: a configuration root holding `$(…)`, a backquote, a quote
 * or a backslash must reach `claude mcp add` as that path and run nothing.
 * JSON's double quotes (the line's quoting before) left `$(…)` to run.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { registrationEntry, registrationLines } from "../../../../src/commands/setup/registration-lines.js";

const shells = ["/bin/sh", "/bin/bash", "/usr/bin/zsh", "/usr/bin/fish"].filter((shell) => existsSync(shell));

describe("registrationLines: the Claude Code line", () => {
  it(`reads back as its argv in the real shells here (${shells.join(", ")}) and runs nothing the root holds`, () => {
    const root = '/tmp/torii $(touch RAN) `touch RAN2` it\'s a\\b "q" $HOME';
    const line = registrationLines(root, "linux").find((text) => text.includes("claude mcp add")) ?? "";
    const command = line.slice(line.indexOf("claude mcp add torii") + "claude mcp add torii".length);
    const server = registrationEntry(root);
    const expected = ["-e", `TORII_CONFIG_DIR=${root}`, "--", server.command, ...server.args].map((word) => `<${word}>\n`).join("");
    for (const shell of shells) {
      const cwd = mkdtempSync(path.join(os.tmpdir(), "torii-registration-"));
      try {
        const out = execFileSync(shell, ["-c", `printf '<%s>\\n'${command}`], { encoding: "utf8", cwd, env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" } });
        expect(out, shell).toBe(expected);
        expect(readdirSync(cwd), shell).toEqual([]);
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    }
  });
});
