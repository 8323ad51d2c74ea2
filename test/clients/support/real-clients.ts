/**
 * What the real-client tests share: the installed clients' binaries, a scratch
 * HOME per test, a Torii configuration root with one allowed command, and
 * running a client (argv only, no shell) until it exits.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeConfigTree } from "../../support/config-tree.js";
import { makeFakeBin } from "../../support/fake-clis.js";
import { CLI_PATH } from "../../support/run-cli.js";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));

/** npm itself runs with this process's whole environment (registry settings, CA certificates, its cache). */
export const NPM_ENV = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));

/** A client's binary in the prefix scripts/clients/install-clients.mjs installed into. */
export function clientBin(name: "claude" | "codex" | "gemini" | "mcp-inspector-cli"): string {
  return path.join(process.env.TORII_CLIENTS_DIR ?? path.join(REPO, ".cache", "real-clients"), "node_modules", ".bin", name);
}

/** A fresh, empty home folder (the clients write their state under it). */
/**
 * A fresh folder for a copy of Torii's code (a clone, a global install's prefix): in the user's cache, not below
 * /tmp, since `agent install` refuses to register code in a shared temporary directory (anyone can write there).
 */
export function codeScratch(prefix: string): string {
  const runs = path.join(os.homedir(), ".cache", "torii-client-runs");
  mkdirSync(runs, { recursive: true, mode: 0o700 });
  return mkdtempSync(path.join(runs, prefix));
}

export function scratchHome(): string {
  return mkdtempSync(path.join(os.tmpdir(), "torii-client-home-"));
}

/**
 * A configuration root with one plain provider, `demo`, running a fake CLI that
 * prints `torii-demo-ok <args>`; its rules accept `hello` and nothing else.
 */
export function demoConfigRoot(): string {
  const bin = makeFakeBin({ greet: `process.stdout.write("torii-demo-ok " + process.argv.slice(2).join(" ") + "\\n");` });
  return makeConfigTree({
    "providers/demo/provider.yaml": `version: "1"\nname: demo\ntool: demo\ndescription: a demo provider\ncommand: ${path.join(bin.dir, "greet")}\nargv:\n  parser: plain\n`,
    "providers/demo/rules.yaml": 'version: "1"\naccept:\n  - hello\n',
    // No human answers in these runs: an unresolved call is denied at once instead of waiting for an approval.
    "settings.yaml": 'version: "1"\napproval:\n  mode: "off"\n',
  });
}

export interface RunResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command` with `args` (no shell) in `cwd` with HOME = `home`; resolves when it exits. */
export function run(command: string, args: readonly string[], options: { home: string; cwd?: string; env?: Record<string, string> }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      cwd: options.cwd ?? options.home,
      env: { PATH: process.env.PATH ?? "", HOME: options.home, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      shell: false,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (status) => {
      resolve({ status, stdout, stderr });
    });
  });
}

/** `torii agent install <client> …` with the built binary, as the operator would run it. */
export async function toriiAgentInstall(client: string, home: string, root: string, extra: readonly string[] = []): Promise<RunResult> {
  const result = await run(process.execPath, [CLI_PATH, "agent", "install", client, ...extra], { home, env: { TORII_CONFIG_DIR: root } });
  if (result.status !== 0) throw new Error(`torii agent install ${client} failed: ${result.stderr}`);
  return result;
}
