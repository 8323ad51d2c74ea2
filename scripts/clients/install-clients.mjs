#!/usr/bin/env node
// Installs the real MCP clients the real-client suite drives (npm run test:clients)
// into one scratch prefix, from the npm registry, at pinned versions that run on
// Node 20. The prefix is reused while its stamp matches the pins, so CI installs
// once per run (and a developer once per pin change). Prints how long it took.
//
//   node scripts/clients/install-clients.mjs [DIR]   (default: .cache/real-clients, or TORII_CLIENTS_DIR)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The pins. Claude Code 2.1.197 is the last release whose manifest accepts Node 20
 * (it ships a native binary); the Inspector's CLI 0.15.0 is the last without a
 * Node >= 22 requirement; Codex ships a native binary; Gemini CLI needs Node >= 20.
 */
export const CLIENT_PACKAGES = [
  "@anthropic-ai/claude-code@2.1.197",
  "@openai/codex@0.171.0",
  "@google/gemini-cli@0.61.0",
  "@modelcontextprotocol/inspector-cli@0.15.0",
];

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** The prefix the clients are installed into. */
export function clientsDir() {
  return process.env.TORII_CLIENTS_DIR ?? path.join(repo, ".cache", "real-clients");
}

/** Installs the pinned clients into `dir` unless its stamp already lists them; returns the seconds spent (0 when cached). */
export function installClients(dir = clientsDir()) {
  const stamp = path.join(dir, "installed.json");
  const wanted = JSON.stringify(CLIENT_PACKAGES);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === wanted) return 0;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "package.json"), '{ "private": true }\n');
  const started = Date.now();
  const result = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", ...CLIENT_PACKAGES], {
    cwd: dir,
    stdio: ["ignore", "inherit", "inherit"],
    shell: false,
  });
  if (result.status !== 0) throw new Error(`npm install of the real clients failed (exit ${result.status ?? result.signal})`);
  writeFileSync(stamp, wanted);
  return (Date.now() - started) / 1000;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? clientsDir();
  const seconds = installClients(dir);
  process.stdout.write(seconds === 0 ? `real clients already installed in ${dir}\n` : `installed the real clients in ${dir} in ${seconds.toFixed(1)} s\n`);
}
