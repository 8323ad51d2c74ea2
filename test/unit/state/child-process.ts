/**
 * Runs a script in a separate Node process that imports the BUILT state
 * modules (dist/state), so cross-process tests exercise real processes with
 * their own proper-lockfile instance. Fails early when dist is missing or
 * older than the sources.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const SOURCE_DIR = path.resolve(import.meta.dirname, "../../../src/state");
const BUILT_DIR = path.resolve(import.meta.dirname, "../../../dist/state");

/** Throws unless every src/state module has an up-to-date build in dist/state. */
export function assertBuiltStateIsFresh(): void {
  for (const name of readdirSync(SOURCE_DIR).filter((entry) => entry.endsWith(".ts"))) {
    const built = path.join(BUILT_DIR, name.replace(/\.ts$/, ".js"));
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` before the state tests`);
    if (statSync(built).mtimeMs < statSync(path.join(SOURCE_DIR, name)).mtimeMs) {
      throw new Error(`${built} is older than its source: run \`npm run build\` before the state tests`);
    }
  }
}

/** `file:` URL of a built module, e.g. builtUrl("lease-store.js"). */
export function builtUrl(name: string): string {
  return pathToFileURL(path.join(BUILT_DIR, name)).href;
}

export interface ChildRun {
  readonly child: ChildProcess;
  /** Resolves with the first stdout line that starts with `prefix`. */
  line(prefix: string): Promise<string>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Starts `node --input-type=module -e <script> ...args` with the built modules' URLs in STATE_DIST. */
export function runChild(script: string, args: readonly string[]): ChildRun {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, ...args], {
    env: { PATH: process.env.PATH ?? "", STATE_DIST: pathToFileURL(BUILT_DIR).href },
    stdio: ["ignore", "pipe", "pipe"],
    shell: false,
  });
  let stdout = "";
  let stderr = "";
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  const check = (): void => {
    for (const waiter of [...waiters]) {
      const found = stdout.split("\n").find((line) => line.startsWith(waiter.prefix));
      if (found !== undefined) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(found);
      }
    }
  };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    check();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve({ code, signal, stderr });
    });
  });
  return {
    child,
    exited,
    line: (prefix) =>
      new Promise<string>((resolve, reject) => {
        waiters.push({ prefix, resolve });
        check();
        void exited.then(({ code, signal }) => {
          reject(new Error(`child exited (${String(code ?? signal)}) before printing "${prefix}":\n${stderr}`));
        });
      }),
  };
}
