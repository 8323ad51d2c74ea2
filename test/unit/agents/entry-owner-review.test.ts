/**
 * Review findings for src/agents/entry-owner.ts (belongs in test/unit/agents/entry-owner-review.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { clientById } from "../../../src/agents/clients.js";
import { entryEdits, statusOf } from "../../../src/agents/registration.js";
import { foreignProgram } from "../../../src/agents/entry-owner.js";
import { isToriiGuardGroup } from "../../../src/agents/guard/hook-installer.js";
import { guardHookConfig } from "../../../src/agents/guard/hook-config.js";
import { toriiCodeDirectory } from "../../../src/runtime/own-code.js";

const claude = clientById("claude-code")!;
const cli = path.join(toriiCodeDirectory(), "cli.js");

/** The document `install` writes for `launch`. */
function installed(launch: { node: string; cli: string; configRoot: string }): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  for (const edit of entryEdits(claude, {}, launch)) {
    let at = document;
    for (const key of edit.path.slice(0, -1)) at = (at[key as string] ??= {}) as Record<string, unknown>;
    at[edit.path.at(-1) as string] = edit.value;
  }
  return document;
}

describe("Torii's own launch under a versioned node (Fedora: /usr/bin/node -> node-22, process.execPath = /usr/bin/node-22)", () => {
  const launch = { node: "/usr/bin/node-22", cli, configRoot: "/home/ann/.config/torii" };

  test("the entry install just wrote is Torii's", () => {
    const document = installed(launch);
    // actual: "foreign" -> reinstall/uninstall refused without --force, doctor fails
    expect(foreignProgram((document.mcpServers as Record<string, unknown>).torii)).toBeUndefined();
    expect(statusOf(claude, document, launch).state).not.toBe("foreign");
  });

  test("the guard hook install just wrote is Torii's (else reinstall appends a duplicate group, uninstall leaves it)", () => {
    const fragment = guardHookConfig("claude-code", { node: launch.node, toriiEntry: launch.cli, configDir: launch.configRoot });
    const [group] = (fragment.hooks as { PreToolUse: unknown[] }).PreToolUse;
    expect(isToriiGuardGroup(group)).toBe(true); // actual: false
  });
});

describe("a look-alike of Torii's launch is reported as what it runs, not as an outdated Torii", () => {
  const launch = { node: process.execPath, cli, configRoot: "/home/ann/.config/torii" };

  test("another dist/cli.js that exists (an agent's <tmp>/evil/dist/cli.js)", () => {
    const evil = path.join(mkdtempSync(path.join(os.tmpdir(), "evil-")), "dist", "cli.js");
    mkdirSync(path.dirname(evil), { recursive: true });
    writeFileSync(evil, "process.exit(0)\n");
    const document = { mcpServers: { torii: { type: "stdio", command: process.execPath, args: [evil, "mcp"], env: { TORII_CONFIG_DIR: launch.configRoot } } } };
    const status = statusOf(claude, document, launch);
    rmSync(path.dirname(path.dirname(evil)), { recursive: true, force: true });
    // actual: { state: "outdated", reasons: ["args differs from this Torii's"] }: nothing names the evil cli.js
    expect(status.reasons.join(" ")).toContain(evil);
  });

  test("this very Torii, with NODE_OPTIONS=--require in its env", () => {
    const document = {
      mcpServers: {
        torii: {
          type: "stdio",
          command: process.execPath,
          args: [cli, "mcp"],
          env: { TORII_CONFIG_DIR: launch.configRoot, NODE_OPTIONS: "--require /tmp/evil.cjs" },
        },
      },
    };
    const status = statusOf(claude, document, launch);
    // actual: "outdated" with "env differs from this Torii's"; the program preloaded is never named
    expect(status.state).toBe("foreign");
  });

  test("this very Torii over a configuration root the agent writes", () => {
    const document = {
      mcpServers: { torii: { type: "stdio", command: process.execPath, args: [cli, "mcp"], env: { TORII_CONFIG_DIR: "/home/ann/project/.torii" } } },
    };
    // actual: "outdated" with "env differs from this Torii's"
    expect(statusOf(claude, document, launch).reasons.join(" ")).toContain("/home/ann/project/.torii");
  });
});

describe('the README\'s own `npx` registration (README.md: "Without installing (npx form, for a quick try ...)")', () => {
  test("{ command: npx, args: [-y, torii-mcp, mcp] } is Torii's: install replaces it with the installed copy without --force", () => {
    const launch = { node: process.execPath, cli, configRoot: "/home/ann/.config/torii" };
    const document = { mcpServers: { torii: { command: "npx", args: ["-y", "torii-mcp", "mcp"] } } };
    // actual: foreignProgram -> '"npx" "-y" "torii-mcp" "mcp"'; status "foreign", doctor fail, install/uninstall refused
    expect(statusOf(claude, document, launch).state).not.toBe("foreign");
    expect(() => entryEdits(claude, document, launch)).not.toThrow();
  });
});

describe("only Torii's documented npx form is Torii's", () => {
  test.each([[["-y", "torii-mcp", "mcp"]], [["--yes", "torii-mcp"]], [["torii-mcp", "mcp"]]])("npx %j is Torii's", (args) => {
    expect(foreignProgram({ command: "npx", args })).toBeUndefined();
  });

  test.each([
    [["-y", "torii-mcp@latest", "mcp"]],
    [["-y", "torii-mcp", "guard"]],
    [["-y", "--package", "evil", "torii-mcp", "mcp"]],
    [["-y", "evil", "torii-mcp"]],
    [["-y", "torii-mcp", "mcp", "extra"]],
  ])("npx %j is another program", (args) => {
    expect(foreignProgram({ command: "npx", args })).toBeDefined();
  });
});

test("an outdated Torii entry's headers are named, their values never shown", () => {
  const launch = { node: process.execPath, cli, configRoot: "/home/ann/.config/torii" };
  const entry = { ...claude.entry(launch), headers: { Authorization: "Bearer SECRET-HEADER-VALUE" } };
  const status = statusOf(claude, { mcpServers: { torii: entry } }, launch);
  expect(status.state).toBe("outdated");
  expect(status.reasons.join(" ")).toContain("Authorization");
  expect(status.reasons.join(" ")).not.toContain("SECRET-HEADER-VALUE");
});
