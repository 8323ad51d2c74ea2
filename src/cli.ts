#!/usr/bin/env node
/**
 * The `torii` binary: with no arguments (or `torii mcp`) the MCP server on
 * stdio; otherwise the operator's CLI (src/commands/program.ts). Each side is
 * imported only when used, so the server starts without loading the CLI, and
 * `torii --version` is answered here without loading either.
 *
 * The build makes this file `dist/cli.cjs`, a CommonJS script (the package's
 * `bin`): a command that loads no ES module (`--version`, a plain `target
 * activate`) never starts Node's ES module loader. So it has no top-level
 * `await`, and `import.meta.url` is the script's own URL (scripts/bundle.mjs).
 */
import { existsSync, readFileSync, writeSync } from "node:fs";
import { fileURLToPath } from "node:url";

function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

/**
 * Writes `text` to stdout straight to its descriptor: `process.stdout` builds a
 * stream over it (for a pipe, a socket with its modules), some 5-10 ms of CPU
 * that a one-line answer does not need. A descriptor that refuses the write (a
 * full non-blocking pipe) gets it through the stream after all.
 */
function writeStdoutLine(text: string): void {
  try {
    const bytes = Buffer.from(`${text}\n`);
    const written = writeSync(1, bytes);
    if (written < bytes.length) process.stdout.write(bytes.subarray(written));
  } catch {
    process.stdout.write(`${text}\n`);
  }
}

/**
 * Serves MCP until the client goes away. A configuration that fails to load is
 * served as a server that only explains it (exit code 1 afterwards); what still
 * escapes is reported on stderr (stdout is JSON-RPC's).
 *
 * The built server is one CommonJS file, dist/server/serve.cjs, run through
 * V8's code cache (runtime/code-cache/code-cache.ts) as `target activate` is;
 * the cache is stored once the server has listed its tools. Without that build
 * (a checkout not built), the module itself.
 */
async function serve(): Promise<number> {
  try {
    // Before the server's code is compiled and run: its objects are the start-up survivors (young-generation.ts),
    // its start-up runs without TurboFan (start-up-tiering.ts), and V8 accepts a code cache only under the flags it was made with.
    (await import("./mcp/young-generation.js")).holdYoungGenerationSmall();
    (await import("./mcp/start-up-tiering.js")).holdOptimisingCompiler();
    const bundle = fileURLToPath(new URL("./server/serve.cjs", import.meta.url));
    if (!existsSync(bundle)) return await (await import("./mcp/serve.js")).serveStdio(packageVersion());
    const loaded = (await import("./runtime/code-cache/code-cache.js")).loadCachedBundle(bundle, fileURLToPath(new URL("./v8-cache", import.meta.url)));
    const serveStdio = loaded.exports.serveStdio as typeof import("./mcp/serve.js").serveStdio;
    return await serveStdio(packageVersion(), {
      startedUp: () => {
        loaded.saveCache();
      },
    });
  } catch (error) {
    process.stderr.write(`torii: the MCP server could not start: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/**
 * Exits as soon as stdout and stderr have taken what the command wrote. The
 * command has finished (its state writes and audit record were awaited); Node's
 * own teardown (the module graph, the heap) would add some 10-30 ms to every
 * operator command.
 */
function exitOnceWritten(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}

/**
 * A plain `target activate` (commands/target/direct-activate.ts), or undefined
 * for any other argv. The built binary runs its own CommonJS build through V8's
 * code cache (runtime/code-cache/code-cache.ts); without that build (a checkout
 * not built), the module itself.
 */
async function directActivate(args: readonly string[]): Promise<number | undefined> {
  const bundle = fileURLToPath(new URL("./activate/direct-activate.cjs", import.meta.url));
  if (!existsSync(bundle)) return (await import("./commands/target/direct-activate.js")).runDirectActivate(args);
  const loaded = (await import("./runtime/code-cache/code-cache.js")).loadCachedBundle(bundle, fileURLToPath(new URL("./v8-cache", import.meta.url)));
  const run = loaded.exports.runDirectActivate as typeof import("./commands/target/direct-activate.js").runDirectActivate;
  const code = await run(args);
  if (code === 0) loaded.saveCache();
  return code;
}

/** Runs the operator command `args` (anything but the server and the shell guard) and exits once its output is written. */
async function operatorCommand(args: readonly string[]): Promise<void> {
  // `target activate`, the operator's most frequent command, skips commander when its argv is plain (it returns undefined otherwise).
  const direct = args[0] === "target" && args[1] === "activate" ? await directActivate(args) : undefined;
  exitOnceWritten(direct ?? (await (await import("./commands/program.js")).runOperatorCommand(packageVersion(), args)));
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // What commander would print, without loading commander or any command.
  writeStdoutLine(packageVersion());
} else if (args.length === 0 || (args.length === 1 && args[0] === "mcp")) {
  // Exit explicitly once shut down: a client that vanished must not leave the server behind.
  void serve().then((code) => process.exit(code));
} else if (args[0] === "guard" && !args.includes("--help") && !args.includes("-h")) {
  // The shell guard runs before every shell command an agent runs: it skips commander and the operator program.
  void import("./commands/guard/guard.js").then(async ({ runGuardFromArgv }) => {
    process.exitCode = await runGuardFromArgv(args.slice(1));
  });
} else {
  void operatorCommand(args);
}
